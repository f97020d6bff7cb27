/**
 * rxpartner simulator (a SmartScripts-platform pharmacy; private API, so the shapes are the [infer]
 * defaults of partners.md section 5): `POST /v1/oauth2/token` with the nested credentials body
 * (a form or grant_type body gets 502), a short-lived JWT, patients/create with
 * PATIENT_CREATION_SUCCESS / FAILURE, transmitEScript and otc/transfer acknowledged with a
 * referenceId, 300 requests per rolling 5 minutes then 429 with Retry-After, and order events
 * ORDER_RECEIVED → ORDER_SHIPPED → ORDER_DELIVERED signed with X-Rxpartner-* headers.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { json, type SimReply, type SimRequest } from '../shared/http.js';
import { OrderBook, type OrderRecord } from '../shared/orders.js';
import { RollingWindow, seconds } from '../shared/rate-limit.js';
import { assemble, controlBody, randomDigits, upsTracking } from '../shared/simulator.js';
import { WebhookSender } from '../shared/webhooks.js';
import { safeEqual } from '../shared/verify.js';
import { SimError, type RunningSimulator, type SimulatorOptions } from '../shared/types.js';
import { rxSignedHeaders } from './rxpartner.signing.js';
import { escriptErrors, patientErrors, transferErrors } from './rxpartner.validate.js';
import { createPatients } from './rxpartner.patients.js';

export interface RxCredentials {
  clientId: string;
  clientSecret: string;
}
export interface RxLimits {
  requests: number;
  windowMs: number;
}
export interface RxOptions extends SimulatorOptions<RxCredentials, RxLimits> {
  /** lifetime of an access token (default 3600 s) */
  tokenTtlSeconds?: number;
}

export const RX_STATUSES = {
  steps: ['ORDER_RECEIVED', 'ORDER_SHIPPED', 'ORDER_DELIVERED'],
  side: ['ORDER_RESHIPPED', 'ORDER_CANCELED'],
  final: ['ORDER_DELIVERED', 'ORDER_CANCELED'],
};

type RxData = { kind: 'escript' | 'otc'; patientId: string | null; rxNumber: string | null };
type RxOrder = OrderRecord<RxData>;

const nest = (status: number, message: string | string[], error?: string): SimReply =>
  json(status, { statusCode: status, message, ...(error ? { error } : {}) });
const BAD_GATEWAY: SimReply = {
  status: 502,
  contentType: 'text/html',
  text: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>',
};

/** What the order endpoints and the events show of an order. */
function orderView(o: RxOrder) {
  return {
    referenceId: o.ref,
    orderId: o.dedupeKey,
    patientId: o.data.patientId,
    status: o.status.replace(/^ORDER_/, ''),
    trackingNumber: o.tracking?.number ?? null,
    carrier: o.tracking?.carrier ?? null,
    trackingUrl: o.tracking?.url ?? null,
    rxNumber: o.data.rxNumber,
  };
}

export async function startRxpartnerSimulator(options: RxOptions): Promise<RunningSimulator> {
  const creds = options.credentials;
  const ttl = options.tokenTtlSeconds ?? 3600;
  const limiter = new RollingWindow(options.limits?.requests ?? 300, options.limits?.windowMs ?? 300_000);
  const key = randomBytes(32);
  const live = new Set<string>(); // token ids; /_sim/tokens/revoke empties it
  const webhooks = new WebhookSender(options.webhookUrl);
  let serial = 1000;

  const emit = (event: string, ref: string, payload: Record<string, unknown>) => {
    const raw = JSON.stringify({ event, ...payload, occurredAt: new Date().toISOString() });
    return webhooks.send({ event, ref, body: raw, headers: rxSignedHeaders(creds.clientSecret, raw) });
  };
  const patients = createPatients((event, p) => {
    // the event names the patient by ids only: no name or birth date travels in a webhook
    void emit(event, p.patientId, { patientId: p.patientId, externalId: p.externalId, status: p.status, ...(p.reason ? { reason: p.reason } : {}) });
  });

  const book: OrderBook<RxData> = new OrderBook(
    RX_STATUSES,
    async (order) => {
      if (order.status === 'ORDER_SHIPPED' || order.status === 'ORDER_RESHIPPED') order.tracking = upsTracking();
      await emit(order.status, order.ref, orderView(order));
    },
    options.advanceEveryMs,
  );

  const token = async (req: SimRequest): Promise<SimReply> => {
    const type = req.header('content-type') ?? '';
    let body: unknown;
    try {
      body = type.includes('application/x-www-form-urlencoded') ? undefined : req.json();
    } catch {
      body = undefined;
    }
    const b = (body ?? {}) as Record<string, unknown>;
    // the spec: a standard grant_type (form) body is answered 502 by the partner's gateway
    if (body === undefined || 'grant_type' in b || !b.credentials || typeof b.credentials !== 'object') return BAD_GATEWAY;
    const c = b.credentials as Record<string, unknown>;
    if (
      typeof c.clientId !== 'string' ||
      typeof c.clientSecret !== 'string' ||
      !safeEqual(c.clientId, creds.clientId) ||
      !safeEqual(c.clientSecret, creds.clientSecret)
    ) {
      return nest(401, 'Invalid client credentials', 'Unauthorized');
    }
    const limited = limit(c.clientId);
    if (limited) return limited;
    const jti = randomUUID();
    live.add(jti);
    const accessToken = await new SignJWT({ scope: 'orders patients' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(c.clientId)
      .setIssuer('rxpartner-simulator')
      .setIssuedAt()
      .setExpirationTime(`${ttl}s`)
      .setJti(jti)
      .sign(key);
    return json(200, { accessToken, tokenType: 'Bearer', expiresIn: ttl });
  };

  const limit = (client: string): SimReply | undefined => {
    const v = limiter.take(client);
    if (v.allowed) return undefined;
    return { ...nest(429, 'ThrottlerException: Too Many Requests'), headers: { 'Retry-After': seconds(v.resetMs) } };
  };

  const bearer = async (req: SimRequest): Promise<string | undefined> => {
    const m = req.header('authorization')?.match(/^Bearer\s+(\S+)$/i);
    if (!m) return undefined;
    try {
      const { payload } = await jwtVerify(m[1], key, { algorithms: ['HS256'], issuer: 'rxpartner-simulator' });
      return payload.jti && live.has(payload.jti) ? payload.sub : undefined;
    } catch {
      return undefined;
    }
  };

  const createOrder = (req: SimRequest, kind: RxData['kind']): SimReply => {
    const b = req.json() as Record<string, unknown>;
    const errors = kind === 'escript' ? escriptErrors(b) : transferErrors(b);
    if (errors.length) return nest(400, errors, 'Bad Request');
    const patientId = typeof b.patientId === 'string' ? b.patientId : null;
    if (patientId && !patients.get(patientId)) return nest(404, `Patient ${patientId} not found`, 'Not Found');
    if (patientId && patients.get(patientId)!.status !== 'ACTIVE')
      return nest(422, `Patient ${patientId} is ${patients.get(patientId)!.status}`, 'Unprocessable Entity');
    const existing = book.byDedupeKey(String(b.externalOrderId));
    // the same Sales Order again is the same partner order [infer]
    if (existing) return json(200, { referenceId: existing.ref, status: 'RECEIVED', duplicate: true });
    const order = book.add({
      ref: `RX-${++serial}`,
      dedupeKey: String(b.externalOrderId),
      body: b,
      data: { kind, patientId, rxNumber: kind === 'escript' ? `RX${randomDigits(7)}` : null },
    });
    void emit('ORDER_RECEIVED', order.ref, orderView(order));
    return json(201, { referenceId: order.ref, status: 'RECEIVED' });
  };

  // webhook registrations (issue 13's register_webhook) [infer]: one per URL, a repeat updates it; deliveries still go to `webhookUrl`
  const registrations = new Map<string, { webhookId: string; url: string; contactEmail: string; events: string[] }>();
  const registerWebhook = (req: SimRequest): SimReply => {
    const b = req.json() as Record<string, unknown>;
    const errs: string[] = [];
    if (typeof b.url !== 'string' || !/^https?:\/\/\S+$/.test(b.url)) errs.push('url must be a URL');
    if (typeof b.contactEmail !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(b.contactEmail)) errs.push('contactEmail must be an email');
    if (errs.length) return nest(400, errs, 'Bad Request');
    const url = String(b.url);
    const known = registrations.get(url);
    const events = Array.isArray(b.events) ? b.events.map(String) : [];
    const reg = { webhookId: known?.webhookId ?? `WH-${randomUUID()}`, url, contactEmail: String(b.contactEmail), events };
    registrations.set(url, reg);
    return json(known ? 200 : 201, reg);
  };

  const route = (req: SimRequest): SimReply => {
    const { method, path } = req;
    if (method === 'POST' && path === '/v1/patients/create') {
      const errors = patientErrors(req.json());
      if (errors.length) return nest(400, errors, 'Bad Request');
      const { patient, created } = patients.create(req.json() as Record<string, unknown>);
      return json(created ? 201 : 200, { patientId: patient.patientId, status: patient.status });
    }
    if (method === 'POST' && path === '/v1/webhooks') return registerWebhook(req);
    if (method === 'GET' && path === '/v1/webhooks') return json(200, { webhooks: [...registrations.values()] });
    if (method === 'POST' && path === '/v1/prescriptions/transmitEScript') return createOrder(req, 'escript');
    if (method === 'POST' && path === '/v1/otc/transfer') return createOrder(req, 'otc');
    const one = method === 'GET' ? path.match(/^\/v1\/orders\/([^/]+)$/) : null;
    if (one) {
      const order = book.get(decodeURIComponent(one[1])) ?? book.byDedupeKey(decodeURIComponent(one[1]));
      return order ? json(200, orderView(order)) : nest(404, 'Order not found', 'Not Found');
    }
    return nest(404, `Cannot ${method} ${path}`, 'Not Found');
  };

  const handle = async (req: SimRequest): Promise<SimReply> => {
    if (req.method === 'POST' && req.path === '/v1/oauth2/token') return token(req);
    const client = await bearer(req);
    if (!client) return nest(401, 'Unauthorized');
    return limit(client) ?? route(req);
  };

  const styleError = (status: number): SimReply =>
    status === 502
      ? BAD_GATEWAY
      : status === 429
        ? { ...nest(429, 'ThrottlerException: Too Many Requests'), headers: { 'Retry-After': 60 } }
        : nest(status, status >= 500 ? 'Internal server error' : 'Request failed');

  return assemble({
    partner: 'rxpartner',
    host: options.host,
    port: options.port,
    handle,
    book,
    webhooks,
    styleError,
    controls: [
      {
        // a benchmark drains its backlog with a raised budget (documented where used)
        method: 'POST',
        path: 'limits',
        handle: (req) => {
          const b = controlBody(req) as { requests?: unknown };
          if (typeof b.requests !== 'number' || !Number.isInteger(b.requests) || b.requests < 1) throw new SimError('requests must be a positive integer', 400);
          limiter.limit = b.requests;
          return { limits: { requests: limiter.limit, windowMs: limiter.windowMs } };
        },
      },
      { method: 'GET', path: 'patients', handle: () => ({ patients: patients.list() }) },
      {
        method: 'POST',
        path: 'patients/fail-next', // the next patient creations end in PATIENT_CREATION_FAILURE
        handle: (req) => ({ failing: patients.failNext(Number(controlBody(req).count ?? 1)) }),
      },
      { method: 'POST', path: 'tokens/revoke', handle: () => (live.clear(), { revoked: true }) },
    ],
  });
}
