/**
 * rxpartner simulator (a SmartScripts-platform pharmacy; private API, so the shapes are the [infer]
 * defaults of partners.md section 5): `POST /v1/oauth2/token` with the nested credentials body
 * (a form or grant_type body gets 502), a short-lived JWT, patients/create with
 * PATIENT_CREATION_SUCCESS / FAILURE, transmitEScript and otc/transfer acknowledged with a
 * referenceId, 300 requests per rolling 5 minutes then 429 with Retry-After, and order events
 * ORDER_RECEIVED → ORDER_SHIPPED → ORDER_DELIVERED signed with X-Rxpartner-* headers.
 */
import { json, type ControlRoute, type SimReply, type SimRequest } from '../shared/http.js';
import { OrderBook } from '../shared/orders.js';
import { RollingWindow, seconds } from '../shared/rate-limit.js';
import { assemble, controlBody, upsTracking } from '../shared/simulator.js';
import { WebhookSender } from '../shared/webhooks.js';
import { SimError, type RunningSimulator, type SimulatorOptions } from '../shared/types.js';
import { rxSignedHeaders } from './rxpartner.signing.js';
import { patientErrors } from './rxpartner.validate.js';
import { createPatients } from './rxpartner.patients.js';
import { createOrder, orderView, readOrder, RX_STATUSES, type RxData, type RxOrderDeps } from './rxpartner.orders.js';
import { BAD_GATEWAY, nest, throttled } from './rxpartner.replies.js';
import { RxTokens, tokenClient, type RxCredentials } from './rxpartner.tokens.js';
import { createRegistrations } from './rxpartner.webhooks.js';

export type { RxCredentials } from './rxpartner.tokens.js';

export interface RxLimits {
  requests: number;
  windowMs: number;
}
export interface RxOptions extends SimulatorOptions<RxCredentials, RxLimits> {
  /** lifetime of an access token (default 3600 s) */
  tokenTtlSeconds?: number;
}

type Patients = ReturnType<typeof createPatients>;

/** The partner API after the Bearer check: patients, webhook registrations and orders. */
function router(deps: RxOrderDeps, registrations: ReturnType<typeof createRegistrations>) {
  return (req: SimRequest): SimReply => {
    const { method, path } = req;
    if (method === 'POST' && path === '/v1/patients/create') {
      const errors = patientErrors(req.json());
      if (errors.length) return nest(400, errors, 'Bad Request');
      const { patient, created } = deps.patients.create(req.json() as Record<string, unknown>);
      return json(created ? 201 : 200, { patientId: patient.patientId, status: patient.status });
    }
    if (method === 'POST' && path === '/v1/webhooks') return registrations.register(req);
    if (method === 'GET' && path === '/v1/webhooks') return registrations.list();
    if (method === 'POST' && path === '/v1/prescriptions/transmitEScript') return createOrder(deps, req, 'escript');
    if (method === 'POST' && path === '/v1/otc/transfer') return createOrder(deps, req, 'otc');
    const one = method === 'GET' ? path.match(/^\/v1\/orders\/([^/]+)$/) : null;
    if (one) return readOrder(deps.book, decodeURIComponent(one[1]));
    return nest(404, `Cannot ${method} ${path}`, 'Not Found');
  };
}

/** A token request (rate-limited per client once its credentials check), else a Bearer call within the client's budget. */
function handler(creds: RxCredentials, tokens: RxTokens, limiter: RollingWindow, route: (req: SimRequest) => SimReply) {
  const limit = (client: string): SimReply | undefined => {
    const v = limiter.take(client);
    return v.allowed ? undefined : throttled(seconds(v.resetMs));
  };
  return async (req: SimRequest): Promise<SimReply> => {
    if (req.method === 'POST' && req.path === '/v1/oauth2/token') {
      const client = tokenClient(req, creds);
      if (typeof client !== 'string') return client;
      return limit(client) ?? tokens.issue(client);
    }
    const client = await tokens.bearer(req);
    if (!client) return nest(401, 'Unauthorized');
    return limit(client) ?? route(req);
  };
}

const styleError = (status: number): SimReply =>
  status === 502 ? BAD_GATEWAY : status === 429 ? throttled(60) : nest(status, status >= 500 ? 'Internal server error' : 'Request failed');

function rxControls(limiter: RollingWindow, patients: Patients, tokens: RxTokens): ControlRoute[] {
  return [
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
    { method: 'POST', path: 'tokens/revoke', handle: () => (tokens.revoke(), { revoked: true }) },
  ];
}

export async function startRxpartnerSimulator(options: RxOptions): Promise<RunningSimulator> {
  const creds = options.credentials;
  const limiter = new RollingWindow(options.limits?.requests ?? 300, options.limits?.windowMs ?? 300_000);
  const tokens = new RxTokens(options.tokenTtlSeconds ?? 3600);
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
  const route = router({ book, patients, nextRef: () => `RX-${++serial}`, emit }, createRegistrations());
  return assemble({
    partner: 'rxpartner',
    host: options.host,
    port: options.port,
    handle: handler(creds, tokens, limiter, route),
    book,
    webhooks,
    styleError,
    controls: rxControls(limiter, patients, tokens),
  });
}
