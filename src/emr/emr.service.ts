/**
 * The EMR endpoints of the pharmacy partner (issue 13; spec "Endpoints / EMR and prescription"):
 * - ensurePatient: the Customer's own patient at rxpartner (POST /v1/patients/create), its id kept by
 *   org under the Customer (customer_partner_patients, key ''); concurrent callers in a process share
 *   one partner call, and the externalId derived from the Customer makes the partner answer the same
 *   patient to any repeat (another process, or after a crash between the partner's answer and our
 *   write): one patient, one id. No database connection is held while the partner answers.
 * - syncToRxpartner: a submitted order's prescription items, after the prescriber's NPI passed the
 *   check digit and the NPI registry (417 naming the NPI otherwise, nothing sent). The send is the
 *   order's one rxpartner partner order and its outbox row, run now by this request (claimed like a
 *   worker would, same dedupe key = the Sales Order name, same attempt records); a crash leaves the
 *   row to the workers, and a worker already running it is waited for, never doubled.
 * - pollRxpartnerStatus: GET /v1/orders/{reference}; the answer stored as a partner event (keyed like
 *   the webhook's, so a repeat or an already delivered webhook stores nothing) that the worker applies
 *   forward only; the reply never shows a status behind the one the order has.
 * - registerWebhook: tells the partner where to push status events.
 * Patient data goes to the partner only; every read or send of it is audited, none is logged.
 */
import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { canEnsurePatient, canSyncPrescriptions } from '../auth/policy/emr.rules.js';
import { recordAudit } from '../audit/audit.service.js';
import { prescriptionItemsOf } from '../catalog/product-mapping.js';
import { withTransaction } from '../db/sequelize.js';
import { loadVisibleOrder } from '../orders/order-doc.js';
import { verifyNpi } from '../orders/npi-registry.service.js';
import { routingLinesOf } from '../orders/partner-fulfilment.service.js';
import { customerNames } from '../org/org.service.js';
import { readDemographics } from '../sales/customer-demographics.service.js';
import { CUSTOMER_AS_PATIENT, findPartnerPatient, rememberPartnerPatient } from '../org/partner-patients.service.js';
import { hmacHex } from '../shared/crypto.js';
import { BusinessRuleError, ConflictError, InputError, NotFoundError, RateLimitError } from '../shared/errors.js';
import { claimRow, redeliver, runClaimedRow } from '../shared/outbox.js';
import { runtime } from '../shared/runtime.js';
import type { ConnectorContext, PartnerHttp, PartnerEvent } from '../fulfilment/connector.js';
import { allowedTrackingUrl, trackingUrlFor } from '../fulfilment/carriers.js';
import { connectorContext } from '../fulfilment/context.js';
import { customerPatientFollowUp } from '../fulfilment/follow-up.js';
import { PATIENT_CREATION_FAILURE, raiseFollowUp } from '../fulfilment/follow-ups.service.js';
import { PartnerCall } from '../fulfilment/partner-call.model.js';
import { storePartnerEvents } from '../fulfilment/partner-events.service.js';
import { PartnerOrder } from '../fulfilment/partner-order.model.js';
import { updatePartnerOrder } from '../fulfilment/partner-orders.service.js';
import { moveOf } from '../fulfilment/partner-status.js';
import { partnerReadiness } from '../fulfilment/readiness.js';
import { routeOrder } from '../fulfilment/router.service.js';
import { rxpartnerConnector } from '../partners/rxpartner/rxpartner.connector.js';
import { partnerMessage, RxStop, rxCall } from '../partners/rxpartner/rxpartner.client.js';

const PARTNER = 'rxpartner';
const PATIENTS = '/v1/patients/create';
const WEBHOOKS = '/v1/webhooks';
/** The events the service asks the partner to push (spec "Inbound partner events"). */
export const RX_WEBHOOK_EVENTS = [
  'ORDER_RECEIVED',
  'ORDER_SHIPPED',
  'ORDER_RESHIPPED',
  'ORDER_DELIVERED',
  'ORDER_CANCELED',
  'PATIENT_CREATION_SUCCESS',
  'PATIENT_CREATION_FAILURE',
];

/** Milliseconds spent waiting for the partner during one request (the bench subtracts them: Server-Timing). */
export interface PartnerTime {
  ms: number;
}

/** An HTTP client that adds each partner call's duration to `time`. */
function timed(http: PartnerHttp, time: PartnerTime): PartnerHttp {
  return {
    async request(req) {
      const started = Date.now();
      try {
        const res = await http.request(req);
        time.ms += res.durationMs;
        return res;
      } catch (err) {
        time.ms += Date.now() - started;
        throw err;
      }
    },
  };
}

/** A ready rxpartner context (417 naming what is missing otherwise). */
async function rxContext(scope: { salesOrder?: string; partnerOrderId?: number }, time: PartnerTime): Promise<ConnectorContext> {
  const ready = await partnerReadiness(PARTNER);
  if (!ready.ready) throw new BusinessRuleError(`rxpartner is not configured: ${ready.problem}`, 'PartnerNotConfiguredError');
  const ctx = connectorContext(PARTNER, ready.credentials, { ...scope, signal: AbortSignal.timeout(runtime().config.partners.timeoutMs * 3) });
  return { ...ctx, http: timed(ctx.http, time) };
}

/** An RxStop as the caller's error: configuration and refusals 417, a spent budget 429. */
function stopError(err: RxStop): Error {
  const o = err.outcome;
  if (o.kind === 'retry' && o.budget) return new RateLimitError(`${o.reason}; try again in ${o.afterSeconds ?? 1} s`, o.afterSeconds ?? 1);
  if (o.kind === 'retry') return new BusinessRuleError(`rxpartner could not take the request now (${o.reason}); nothing was stored, try again`);
  if (o.kind === 'awaiting_configuration') return new BusinessRuleError(`rxpartner is not configured: ${o.reason}`, 'PartnerNotConfiguredError');
  return new BusinessRuleError(o.reason);
}

// ---- ensure_patient ---------------------------------------------------------------------------

export interface EnsurePatientArgs {
  customer: string;
  first_name?: string;
  last_name?: string;
  date_of_birth?: string;
  gender?: string;
}

export interface EnsurePatientResult {
  customer: string;
  rxpartner_patient_id: string;
  status: 'active' | 'pending';
  /** true when this call created the patient at the partner */
  created: boolean;
}

/** The partner's externalId of a Customer's own patient: stable, opaque, no customer data. */
export function customerExternalId(customer: string): string {
  return `svc-customer-${hmacHex(runtime().config.secretKey, `rxpartner-patient:${customer}`).slice(0, 32)}`;
}

/** The Customer's display name split at its last word (first name, last name). */
function namesOf(displayName: string): { first: string; last: string } {
  const words = displayName.trim().split(/\s+/);
  return words.length > 1 ? { first: words.slice(0, -1).join(' '), last: words[words.length - 1] } : { first: words[0], last: words[0] };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The known patient as an answer (audited read of the Customer's patient id). */
async function knownPatient(actor: Actor, customer: string, id: string, status: 'active' | 'pending', created: boolean): Promise<EnsurePatientResult> {
  if (!created)
    await recordAudit(undefined, actor, {
      action: 'read',
      object_type: 'Customer',
      object_name: customer,
      fields: ['rxpartner_patient_id'],
      detail: { purpose: 'svc.rxpartner.ensure_patient' },
    });
  return { customer, rxpartner_patient_id: id, status, created };
}

/** Patient creations in flight in this process, by Customer: concurrent callers share one partner call. */
const inFlight = new Map<string, Promise<EnsurePatientResult>>();

/**
 * Creates or looks up the Customer's patient at rxpartner and keeps its id for the Customer.
 * Idempotent: an active patient is answered from the registry without a partner call; concurrent
 * calls in one process share one partner call; across processes the partner's dedupe on our
 * externalId answers the same patient (so one patient, one id, whoever races). No database
 * connection is held while the partner answers.
 */
export async function ensurePatient(actor: Actor, args: EnsurePatientArgs, time: PartnerTime = { ms: 0 }): Promise<EnsurePatientResult> {
  authorize(actor, 'ensure_patient', 'Rxpartner EMR');
  const customer = args.customer;
  const display = (await customerNames([customer])).get(customer);
  if (display === undefined || !canEnsurePatient(actor, customer)) throw new NotFoundError(`Customer ${customer} not found`);
  const known = await findPartnerPatient(customer, PARTNER, CUSTOMER_AS_PATIENT);
  if (known?.status === 'active') return knownPatient(actor, customer, known.partner_patient_id, 'active', false);
  const running = inFlight.get(customer);
  if (running) {
    // another request of this process is asking the partner: its answer is ours (read, not created, by this caller)
    const r = await running;
    return knownPatient(actor, customer, r.rxpartner_patient_id, r.status, false);
  }
  const mine = createPatient(actor, customer, display, args, time).finally(() => inFlight.delete(customer));
  inFlight.set(customer, mine);
  return mine;
}

/**
 * The patient sent for a Customer: the Customer's own demographics (issue 26; an audited read of
 * them), each overridden by the caller's argument; names fall back to the Customer's display name.
 */
async function patientOf(actor: Actor, customer: string, display: string, args: EnsurePatientArgs) {
  const stored = (await readDemographics(actor, customer, 'svc.rxpartner.ensure_patient')) ?? {};
  const names = namesOf(display);
  const pick = (arg: string | undefined, own: string | null | undefined) => arg?.trim() || own || undefined;
  const patient = {
    firstName: pick(args.first_name, stored.first_name) ?? names.first,
    lastName: pick(args.last_name, stored.last_name) ?? names.last,
    dateOfBirth: pick(args.date_of_birth, stored.date_of_birth),
    gender: pick(args.gender, stored.gender),
  };
  if (!patient.dateOfBirth)
    throw new BusinessRuleError(
      `Customer ${customer} has no date_of_birth: set it on the Customer (PUT /api/resource/Customer/${customer}, svc customer update ${customer} --date-of-birth YYYY-MM-DD) or pass date_of_birth`,
      'MandatoryError',
    );
  return { ...patient, dateOfBirth: patient.dateOfBirth };
}

/** Asks the partner for the Customer's patient and stores its answer (the row at once, the audit and any follow-up in one transaction). */
async function createPatient(actor: Actor, customer: string, display: string, args: EnsurePatientArgs, time: PartnerTime): Promise<EnsurePatientResult> {
  const { firstName, lastName, dateOfBirth, gender } = await patientOf(actor, customer, display, args);
  const ctx = await rxContext({}, time);
  let res;
  try {
    res = await rxCall(ctx, {
      method: 'POST',
      path: PATIENTS,
      endpoint: `POST ${PATIENTS}`,
      json: { externalId: customerExternalId(customer), firstName, lastName, dateOfBirth, ...(gender ? { gender } : {}) },
    });
  } catch (err) {
    if (err instanceof RxStop) throw stopError(err);
    throw err;
  }
  const body = (res.json ?? {}) as { patientId?: unknown; status?: unknown };
  if (res.status !== 200 && res.status !== 201) {
    // the partner may echo the patient's values: they are blanked out of the error
    let text = partnerMessage(res);
    for (const v of [firstName, lastName, dateOfBirth].filter((x) => x.length > 1)) text = text.split(v).join('[patient]');
    throw new BusinessRuleError(`rxpartner refused the patient of Customer ${customer} (${res.status}): ${text}`);
  }
  if (typeof body.patientId !== 'string' || !body.patientId)
    throw new BusinessRuleError(`rxpartner answered ${res.status} to ${PATIENTS} without a patientId; nothing was stored, try again`);
  const patientId = body.patientId;
  const text = typeof body.status === 'string' ? body.status.toUpperCase() : 'ACTIVE';
  const status: 'failed' | 'active' | 'pending' =
    text === 'FAILED' || text === 'FAILURE' ? 'failed' : text === 'ACTIVE' || text === 'SUCCESS' || text === 'CREATED' ? 'active' : 'pending';
  // written at once: the partner's PATIENT_CREATION_* event may be applied before anything else commits
  await rememberPartnerPatient(customer, PARTNER, CUSTOMER_AS_PATIENT, { id: patientId, status, salesOrder: null });
  await withTransaction(undefined, async (transaction) => {
    await recordAudit(transaction, actor, {
      action: 'send',
      object_type: 'Customer',
      object_name: customer,
      fields: ['first_name', 'last_name', 'date_of_birth', ...(gender ? ['gender'] : []), 'rxpartner_patient_id'],
      detail: { purpose: 'svc.rxpartner.ensure_patient', partner: PARTNER, outcome: status },
    });
    if (status === 'failed')
      await raiseFollowUp(
        { partner: PARTNER, kind: PATIENT_CREATION_FAILURE, customer, partnerPatientId: patientId, detail: customerPatientFollowUp(customer) },
        { transaction },
      );
  });
  if (status === 'failed')
    throw new BusinessRuleError(
      `rxpartner could not create the patient of Customer ${customer} (PATIENT_CREATION_FAILURE, patient ${patientId}); operations were asked to follow up`,
    );
  return { customer, rxpartner_patient_id: patientId, status, created: res.status === 201 };
}

// ---- sync_to_rxpartner ------------------------------------------------------------------------

export interface SyncResult {
  sales_order: string;
  /** sent: the partner has the prescription; queued: the partner could not take it now, the worker sends it (same dedupe key) */
  status: 'sent' | 'queued';
  rxpartner_reference_id: string | null;
  rxpartner_status: string | null;
  provider_npi: string;
  detail: string | null;
}

async function rxPartnerOrderOf(salesOrder: string): Promise<PartnerOrder | null> {
  return PartnerOrder.findOne({ where: { salesOrder, partner: PARTNER } });
}

/** Partner time of a partner order's calls since `since` (the calls a request made through the outbox handler). */
async function partnerMsSince(partnerOrderId: number, since: Date): Promise<number> {
  const total = await PartnerCall.sum('durationMs', { where: { partnerOrderId, createdAt: { [Op.gte]: since } } });
  return Number(total) || 0;
}

/**
 * Sends a submitted order's prescription items to rxpartner now, after the NPI check; 409 when the
 * partner already has them (spec: "Order already synced to a vendor").
 */
export async function syncToRxpartner(actor: Actor, salesOrder: string, time: PartnerTime = { ms: 0 }): Promise<SyncResult> {
  authorize(actor, 'sync', 'Rxpartner EMR');
  const head = await loadVisibleOrder(actor, salesOrder);
  if (!canSyncPrescriptions(actor, head)) throw new NotFoundError(`Sales Order ${salesOrder} not found`);
  if (head.docstatus !== 1)
    throw new BusinessRuleError(
      `Sales Order ${salesOrder} is ${head.docstatus === 2 ? 'cancelled' : 'not submitted'}: only a submitted order can be sent to rxpartner`,
    );
  const lines = await routingLinesOf(salesOrder);
  const rxItems = await prescriptionItemsOf(lines.map((l) => l.item_code));
  const rxLines = lines.filter((l) => rxItems.has(l.item_code) && (l.fulfilment_partner === null || l.fulfilment_partner === PARTNER));
  if (rxLines.length === 0) throw new BusinessRuleError(`Sales Order ${salesOrder} has no prescription items for rxpartner`);
  const npi = typeof head.checkout_npi_number === 'string' ? head.checkout_npi_number : '';
  if (!npi) throw new BusinessRuleError(`Sales Order ${salesOrder} has no provider NPI (checkout_npi_number)`, 'MandatoryError');
  // the prescriber first: nothing leaves the service for an NPI that fails the check digit or the registry
  const verdict = await verifyNpi(npi);
  if (!verdict.ok) throw new BusinessRuleError(verdict.message, 'ValidationError');

  let po = await rxPartnerOrderOf(salesOrder);
  if (!po) {
    await routeOrder(salesOrder); // the router's row may not have run yet: the same routing, idempotent
    po = await rxPartnerOrderOf(salesOrder);
  }
  if (!po) throw new BusinessRuleError(`Sales Order ${salesOrder} has no rxpartner lines to send`);
  const outboxId = await withTransaction(undefined, async (transaction) => {
    const p = (await PartnerOrder.findByPk(po.id, { transaction, lock: transaction.LOCK.UPDATE }))!;
    if (p.status === 'created')
      throw new ConflictError(`Sales Order ${salesOrder} is already synced to rxpartner (reference ${p.partnerReference ?? 'unknown'})`);
    if ((p.status === 'failed' || p.status === 'awaiting_configuration') && p.outboxId !== null) {
      // an explicit call is a re-drive with fresh attempts, same outbox row and dedupe key (as `svc partner retry`)
      if (await redeliver(p.outboxId, { transaction, attempts: runtime().config.partners.maxAttempts }))
        await updatePartnerOrder(p, { status: 'pending' }, { transaction });
    }
    await recordAudit(transaction, actor, {
      action: 'sync',
      object_type: 'Sales Order',
      object_name: salesOrder,
      detail: { partner: PARTNER, provider_npi: npi, partner_order_id: p.id },
    });
    return p.outboxId;
  });
  if (outboxId === null) throw new BusinessRuleError(`The rxpartner partner order of ${salesOrder} has no outbox row; run svc partner retry ${salesOrder}`);

  const started = new Date();
  const { timeoutMs, budgetWaitMs } = runtime().config.partners;
  const leaseSeconds = Math.ceil((3 * timeoutMs + budgetWaitMs) / 1000) + 5;
  const workerId = `api:sync_to_rxpartner:${randomUUID()}`;
  const row = await claimRow(outboxId, workerId, leaseSeconds);
  if (row) await runClaimedRow(row, workerId, AbortSignal.timeout(leaseSeconds * 1000));
  else await waitForAttempt(po.id, leaseSeconds * 1000); // a worker is sending it now: its outcome is ours
  time.ms += await partnerMsSince(po.id, started);
  const done = (await PartnerOrder.findByPk(po.id))!;
  if (done.status === 'failed' || done.status === 'awaiting_configuration')
    throw new BusinessRuleError(`rxpartner did not take Sales Order ${salesOrder}: ${done.lastError ?? done.status}`);
  return {
    sales_order: salesOrder,
    status: done.status === 'created' ? 'sent' : 'queued',
    rxpartner_reference_id: done.partnerReference,
    rxpartner_status: done.partnerStatus,
    provider_npi: npi,
    detail: done.status === 'created' ? null : (done.lastError ?? 'queued for the worker'),
  };
}

/** Waits while another process's attempt at the partner order runs (until its status settles or the lease would lapse). */
async function waitForAttempt(partnerOrderId: number, maxMs: number): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (Date.now() < deadline) {
    const p = await PartnerOrder.findByPk(partnerOrderId, { attributes: ['status'] });
    if (!p || p.status === 'created' || p.status === 'failed' || p.status === 'awaiting_configuration') return;
    await sleep(100);
  }
}

// ---- poll_rxpartner_status --------------------------------------------------------------------

export interface PollResult {
  sales_order: string;
  rxpartner_reference_id: string;
  /** Received / Shipped / Delivered (or Cancelled), never behind what the order already shows */
  status: string | null;
  tracking_number: string | null;
  carrier: string | null;
  tracking_url: string | null;
}

const POLLED_STATUS: Record<string, string> = {
  RECEIVED: 'Received',
  SHIPPED: 'Shipped',
  RESHIPPED: 'Shipped',
  DELIVERED: 'Delivered',
  CANCELED: 'Cancelled',
  CANCELLED: 'Cancelled',
};

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, 500) : null);

/** Reads the order's status at rxpartner; the answer is stored as an event the worker applies forward only. */
export async function pollRxpartnerStatus(actor: Actor, salesOrder: string, time: PartnerTime = { ms: 0 }): Promise<PollResult> {
  authorize(actor, 'poll', 'Rxpartner EMR');
  await loadVisibleOrder(actor, salesOrder);
  const po = await rxPartnerOrderOf(salesOrder);
  if (!po || po.status !== 'created' || !po.partnerReference)
    throw new BusinessRuleError(`Sales Order ${salesOrder} is not synced to rxpartner yet${po ? ` (${po.status})` : ''}`);
  const reference = po.partnerReference.split(' ')[0];
  const ctx = await rxContext({ salesOrder, partnerOrderId: po.id }, time);
  let res;
  try {
    res = await rxCall(ctx, { method: 'GET', path: `/v1/orders/${encodeURIComponent(reference)}`, endpoint: 'GET /v1/orders/{reference}' });
  } catch (err) {
    if (err instanceof RxStop) throw stopError(err);
    throw err;
  }
  if (res.status !== 200) throw new BusinessRuleError(`rxpartner answered ${res.status} to the status of ${reference}: ${partnerMessage(res)}`);
  const body = (res.json ?? {}) as Record<string, unknown>;
  const raw = (text(body.status) ?? '').toUpperCase().replace(/^ORDER_/, '');
  const polled = POLLED_STATUS[raw] ?? null;
  const tracking = { number: text(body.trackingNumber), carrier: text(body.carrier), url: text(body.trackingUrl) };
  if (polled) {
    const event: PartnerEvent = {
      partner: PARTNER,
      // the webhook's own key (rxpartner.webhook.ts), so a poll and the webhook of one change apply once
      eventId: `ORDER_${raw}:${reference}:${tracking.number ?? ''}`,
      reference: salesOrder,
      status: polled,
      statusText: `ORDER_${raw}`,
      tracking: tracking.number || tracking.carrier || tracking.url ? tracking : null,
      rawType: 'poll',
      occurredAt: null,
    };
    await withTransaction(undefined, (transaction) => storePartnerEvents(PARTNER, [event], { transaction }));
  }
  // forward only: the reply shows the further of what the order has and what the partner said
  const move = polled ? moveOf(rxpartnerConnector.statuses, po.partnerStatus, polled) : 'unknown';
  const status = move === 'advance' ? polled : po.partnerStatus;
  const newer = (move === 'advance' || move === 'same') && tracking.number !== null && tracking.number !== po.trackingNumber;
  const carrier = (newer ? tracking.carrier : null) ?? po.carrier;
  const number = (newer ? tracking.number : null) ?? po.trackingNumber;
  return {
    sales_order: salesOrder,
    rxpartner_reference_id: po.partnerReference,
    status,
    tracking_number: number,
    carrier,
    // a partner's link only when it points at a carrier's own host, else derived (as the event application does)
    tracking_url: newer ? allowedTrackingUrl(tracking.url) || trackingUrlFor(carrier, number) : (po.trackingUrl ?? trackingUrlFor(carrier, number)),
  };
}

// ---- register_webhook -------------------------------------------------------------------------

export interface RegisterWebhookResult {
  ok: true;
  webhook_url: string;
  events: string[];
  contact_email: string;
  partner_webhook_id: string | null;
}

/** The webhook address of a public base URL: https outside development, no user info, query or fragment. */
export function webhookUrlOf(publicBaseUrl: string): string {
  let u: URL;
  try {
    u = new URL(publicBaseUrl);
  } catch {
    throw new InputError('public_base_url must be an absolute URL');
  }
  const dev = runtime().config.env === 'development';
  if (u.protocol !== 'https:' && !(dev && u.protocol === 'http:'))
    throw new InputError(`public_base_url must be an https URL${dev ? ' (http is accepted in development only)' : ''}`);
  if (u.username || u.password) throw new InputError('public_base_url must not carry a user name or password');
  if (u.search || u.hash) throw new InputError('public_base_url must not carry a query or fragment');
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}/api/method/svc.rxpartner.webhook`;
}

/** One-time setup: asks rxpartner to push status events to this instance's webhook (idempotent at the partner by URL [infer]). */
export async function registerWebhook(actor: Actor, args: { public_base_url: string; contact_email: string }): Promise<RegisterWebhookResult> {
  authorize(actor, 'register_webhook', 'Rxpartner EMR');
  const url = webhookUrlOf(args.public_base_url);
  const ctx = await rxContext({}, { ms: 0 });
  let res;
  try {
    res = await rxCall(ctx, {
      method: 'POST',
      path: WEBHOOKS,
      endpoint: `POST ${WEBHOOKS}`,
      json: { url, contactEmail: args.contact_email, events: RX_WEBHOOK_EVENTS },
    });
  } catch (err) {
    if (err instanceof RxStop) throw stopError(err);
    throw err;
  }
  if (res.status !== 200 && res.status !== 201)
    throw new BusinessRuleError(`rxpartner refused the webhook registration (${res.status}): ${partnerMessage(res)}`);
  const body = (res.json ?? {}) as { webhookId?: unknown; id?: unknown };
  await recordAudit(undefined, actor, {
    action: 'register_webhook',
    object_type: 'Partner Credentials',
    object_name: PARTNER,
    detail: { webhook_url: url, contact_email: args.contact_email },
  });
  return {
    ok: true,
    webhook_url: url,
    events: RX_WEBHOOK_EVENTS,
    contact_email: args.contact_email,
    partner_webhook_id: text(body.webhookId) ?? text(body.id),
  };
}
