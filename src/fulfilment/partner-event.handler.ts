/**
 * The outbox handler of `partner_event` rows: applies one stored partner event to its partner order
 * and Sales Order, in one transaction, forward only (spec "Partner-driven order statuses"): the
 * partner's status and tracking fields, the partner's shipment row (aggregate_shipments) and, once
 * the partner has shipped, the lines shipped and the order moved on (To Bill, Completed); a new
 * tracking number is mailed to the customer through the outbox. An event that would move a status
 * back (a late RECEIVED after Shipped) changes nothing and says so on its row.
 */
import { systemActor } from '../auth/actor.js';
import { execute, selectOne, withTransaction, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { partnerOrderHead, writePartnerProgress } from '../orders/partner-fulfilment.service.js';
import { mailParcel } from '../orders/parcel-mail.js';
import type { AttemptContext, AttemptOutcome, OutboxHandler, OutboxRow } from '../shared/outbox.js';
import { partnerBudget, partnerLimits } from './budget.js';
import { allowedTrackingUrl, trackingUrlFor } from './carriers.js';
import { connectorOf, PartnerBudgetWait, PartnerCallError, type Connector, type PartnerEvent } from './connector.js';
import { loadPartnerCredentials } from './credentials/credentials.service.js';
import { partnerHttp } from './partner-http.js';
import { PartnerEventRecord } from './partner-event.model.js';
import type { PartnerOrderData } from './partner-order.model.js';
import { updatePartnerOrderWith, type PartnerOrderPatch } from './partner-orders.service.js';
import { applyCustomerPatientEvent, applyPatientEvent, lockPartnerOrderOfEvent, recordFollowUp } from './follow-up.js';
import { moveOf, stageOf } from './partner-status.js';
import { ofConnection, PARTNER_EVENT_KIND, storePartnerEvents } from './partner-events.service.js';
import { partnerKeys } from './partners.js';
import { webhookConnections } from './webhook-connections.js';

const actor = systemActor('job:partner-event', 'job');

/** How long an event waits for an earlier one of its order (one that never applies does not hold the others up for longer). */
const ORDER_WAIT_SECONDS = 60;

/** The stored event as the handler reads it (raw: a model instance per event was a measured share of a worker's CPU). */
interface StoredEvent {
  id: number;
  partner: string;
  reference: string;
  event: PartnerEvent;
  outcome: string | null;
  appliedAt: Date | null;
}

const sql = once(() => {
  const n = sqlFor({ pe: PartnerEventRecord });
  return {
    lock: n(`SELECT {pe.id} AS id, {pe.partner} AS partner, {pe.reference} AS reference, {pe.event} AS event, {pe.outcome} AS outcome,
       {pe.appliedAt} AS "appliedAt" FROM {pe} WHERE {pe.id} = $1 FOR UPDATE`),
    earlier: n(`SELECT 1 FROM {@pe} WHERE {pe:partner} = $1 AND {pe:reference} = $2 AND {pe:appliedAt} IS NULL AND {pe:id} < $3
       AND {pe:receivedAt} > now() - make_interval(secs => ${ORDER_WAIT_SECONDS}) LIMIT 1`),
  };
});

/** SQL marking an event applied, its binds from `$first` (outcome, sales order, applied at, id). */
const markFrom = new Map<number, string>();
function markSql(first: number): string {
  let text = markFrom.get(first);
  if (!text) {
    const [o, so, at, id] = [first, first + 1, first + 2, first + 3];
    text = sqlFor({ pe: PartnerEventRecord })(
      `UPDATE {@pe} SET {pe:outcome} = $${o}, {pe:salesOrder} = $${so}, {pe:appliedAt} = $${at} WHERE {pe:id} = $${id}`,
    );
    markFrom.set(first, text);
  }
  return text;
}

/** Marks the event applied; with `update`, in the statement that updates its partner order (one round trip). */
async function markEvent(
  rec: StoredEvent,
  outcome: string,
  salesOrder: string | null,
  transaction: Tx,
  update?: { po: PartnerOrderData; patch: PartnerOrderPatch },
): Promise<void> {
  const values = [outcome.slice(0, 500), salesOrder, new Date(), rec.id];
  if (!update) await execute(markSql(1), values, { transaction });
  else await updatePartnerOrderWith(update.po, update.patch, (first) => ({ sql: markSql(first), values }), { transaction });
}

/** Mails the customer about a parcel of a shipped partner order: once per tracking number (parcel-mail.ts), its items the partner's lines. */
async function notifyCustomer(po: PartnerOrderData, t: { number: string; carrier: string | null; url: string | null }, transaction: Tx): Promise<void> {
  const head = await partnerOrderHead(po.salesOrder, { transaction }); // with the customer's and the address's e-mail
  const to = head?.customer_email ?? head?.ship_to?.email ?? head?.owner_email;
  if (!to) return;
  await mailParcel(transaction, {
    salesOrder: po.salesOrder,
    trackingNumber: t.number,
    carrier: t.carrier,
    trackingUrl: t.url,
    contents: { partner: po.partner },
    to: [to],
  });
}

/** The parcel the order shows once the event is applied: a new tracking number replaces the old, else the old stays. */
function trackingAfter(po: PartnerOrderData, event: PartnerEvent) {
  const number = event.tracking?.number || null;
  const newTracking = number !== null && number !== po.trackingNumber;
  const carrier = event.tracking?.carrier || po.carrier;
  const trackingNumber = number ?? po.trackingNumber;
  // a partner's link is shown only when it points at a carrier's own host (carriers.ts), else derived
  const trackingUrl = allowedTrackingUrl(event.tracking?.url) || (newTracking ? null : po.trackingUrl) || trackingUrlFor(carrier, trackingNumber);
  return { newTracking, carrier, trackingNumber, trackingUrl };
}

/**
 * Applies the event to its (locked) partner order's Sales Order; answers what it did and the partner
 * order's update, which the caller writes with the event's mark (one statement).
 */
async function applyTo(
  connector: Connector,
  po: PartnerOrderData,
  event: PartnerEvent,
  transaction: Tx,
): Promise<{ outcome: string; patch?: PartnerOrderPatch }> {
  if (event.status === null) return { outcome: 'ignored: no status change' };
  const move = moveOf(connector.statuses, po.partnerStatus, event.status);
  if (move === 'unknown') return { outcome: `ignored: unknown ${po.partner} status ${event.status}` };
  if (move === 'back' || move === 'after_terminal') return { outcome: `ignored: ${event.status} would move ${po.partnerStatus} back` };
  const { newTracking, carrier, trackingNumber, trackingUrl } = trackingAfter(po, event);
  if (move === 'same' && !newTracking) return { outcome: `ignored: already ${po.partnerStatus}` };
  const status = move === 'advance' ? event.status : po.partnerStatus!;
  const { stage, shipped, delivered } = stageOf(connector.statuses, status);
  const patch = { partnerStatus: status, trackingNumber, carrier, trackingUrl, ...(shipped && !po.shippedAt ? { shippedAt: new Date() } : {}) };
  const f = connector.orderFields;
  // mailed once per parcel (tracking number), however often its events come: the notice row decides;
  // queued before the shipment is recorded, whose stock move is best left last
  if (shipped && trackingNumber) await notifyCustomer(po, { number: trackingNumber, carrier, url: trackingUrl }, transaction);
  const progress = await writePartnerProgress(
    actor,
    { [f.status]: status, [f.trackingNumber]: trackingNumber, [f.carrier]: carrier, [f.trackingUrl]: trackingUrl, [f.syncDate]: new Date() },
    {
      salesOrder: po.salesOrder,
      partner: po.partner,
      label: connector.label,
      trackingNumber,
      carrier,
      trackingUrl,
      stage,
      statusText: event.statusText ?? status,
      shipped,
      delivered,
    },
    { transaction },
  );
  const outcome = `applied: ${po.partnerStatus ?? '(none)'} → ${status}${newTracking ? `, tracking ${trackingNumber}` : ''}; order ${progress.status}`;
  return { outcome, patch };
}

/** Completes an event that names a URL to read (shipper's resource_url) into the events it stands for. */
async function resolve(connector: Connector, rec: StoredEvent, ctx: AttemptContext): Promise<AttemptOutcome> {
  if (!connector.resolveEvent) {
    await withTransaction(undefined, (transaction) => markEvent(rec, 'ignored: the connector cannot resolve events', null, transaction));
    return { ok: false, giveUp: true, error: 'the connector cannot resolve events' };
  }
  const partner = rec.partner;
  const marketplace = await loadPartnerCredentials(partner);
  // a customer's own connection's event is read with that connection's credentials (still at the marketplace's base_url)
  const own = rec.event.connection ? ((await webhookConnections()?.credentials(partner, rec.event.connection.id)) ?? null) : undefined;
  if (own === null) {
    await withTransaction(undefined, (transaction) => markEvent(rec, 'ignored: the connection was disconnected (nothing read)', null, transaction));
    return { ok: true, excerpt: 'ignored: the connection was disconnected' };
  }
  const cctx = {
    credentials: Object.freeze({ ...marketplace, ...own }),
    http: partnerHttp({ partner, signal: ctx.signal }),
    budget: partnerBudget(ctx.signal),
    signal: ctx.signal,
    limits: partnerLimits(),
  };
  let events: PartnerEvent[];
  try {
    events = await connector.resolveEvent(rec.event, cctx);
  } catch (err) {
    if (err instanceof PartnerBudgetWait) return { ok: false, error: err.message, retryInSeconds: Math.max(1, err.waitSeconds), deferred: true };
    return { ok: false, error: err instanceof PartnerCallError ? err.message : `connector error: ${(err as Error).message}` };
  }
  return withTransaction(undefined, async (transaction) => {
    const stored = await storePartnerEvents(
      partner,
      ofConnection(
        events.map((e) => ({ ...e, resolveUrl: undefined })),
        rec.event.connection,
      ),
      { transaction },
    );
    await markEvent(rec, `resolved into ${events.length} event(s), ${stored} new`, null, transaction);
    return { ok: true, excerpt: `resolved into ${events.length} event(s)` };
  });
}

async function run(row: OutboxRow, ctx: AttemptContext): Promise<AttemptOutcome> {
  const id = Number(row.payload.partner_event_id);
  const last = ctx.attempt >= row.max_attempts;
  // the event is read once, locked, in the transaction that applies it; one naming a URL to read is
  // resolved after that transaction (no lock held across a partner call)
  const done = await withTransaction(undefined, async (transaction): Promise<AttemptOutcome | { resolve: StoredEvent; connector: Connector }> => {
    const rec = await selectOne<StoredEvent>(sql().lock, [id], { transaction });
    if (!rec) return { ok: false, giveUp: true, error: `partner event ${id} not found` };
    if (rec.appliedAt) return { ok: true, excerpt: rec.outcome ?? 'applied' };
    const connector = connectorOf(rec.partner);
    if (!connector) return { ok: false, giveUp: true, error: `no ${rec.partner} connector in this release` };
    if (rec.event.resolveUrl) return { resolve: rec, connector };
    return apply(connector, rec, last, transaction);
  });
  return 'resolve' in done ? resolve(done.connector, done.resolve, ctx) : done;
}

/** Applies a stored event (locked) in the caller's transaction. */
async function apply(connector: Connector, rec: StoredEvent, last: boolean, transaction: Tx): Promise<AttemptOutcome> {
  const po = await lockPartnerOrderOfEvent(rec.partner, rec.event, rec.reference, { transaction });
  if (!po) {
    // a Customer's own patient (ensure_patient) has no order: recorded on the patient, follow-up raised (issue 13)
    const customerPatient = await applyCustomerPatientEvent(rec.partner, rec.event, rec.reference, { transaction });
    if (customerPatient) {
      await markEvent(rec, customerPatient, null, transaction);
      return { ok: true, excerpt: customerPatient };
    }
    // the event may outrun the order it names (routing not done yet): tried again, then kept as unmatched
    if (!last) return { ok: false, error: `no ${rec.partner} partner order ${rec.reference} yet`, retryInSeconds: 30 };
    await markEvent(rec, 'unmatched: no partner order has this reference', null, transaction);
    return { ok: false, giveUp: true, error: `unmatched: no ${rec.partner} partner order ${rec.reference}` };
  }
  const e = rec.event;
  if (e.connection) {
    // a customer's own account reports on that customer's orders only (its orderKeys are its to choose)
    const head = await partnerOrderHead(po.salesOrder, { transaction });
    if (head?.customer !== e.connection.customer) {
      const why = `ignored: ${po.salesOrder} is not an order of the connection's customer`;
      await markEvent(rec, why, null, transaction);
      return { ok: true, excerpt: why };
    }
  }
  // events of one order are applied in the order received: a later one waits (no attempt spent)
  // while an earlier one is still to be applied, so Shipped-then-Delivered never applies backwards
  // (Delivered first would have the Shipped event ignored, its tracking number with it)
  if (!e.patient && (await execute(sql().earlier, [rec.partner, rec.reference, rec.id], { transaction })).length > 0)
    return { ok: false, deferred: true, retryInSeconds: 1, error: `an earlier ${rec.partner} event of ${rec.reference} is applied first` };
  const { outcome, patch } = e.patient
    ? { outcome: await applyPatientEvent(po, e, rec.reference, { transaction }) }
    : await applyTo(connector, po, e, transaction);
  if (e.followUp && !e.patient) await recordFollowUp(po, e.followUp, e.rawType, { transaction });
  await markEvent(rec, outcome, po.salesOrder, transaction, patch && { po, patch });
  return { ok: true, excerpt: outcome };
}

/** The outbox handler of partner events (registered in src/modules.ts). */
export const partnerEventHandler: OutboxHandler = {
  kind: PARTNER_EVENT_KIND,
  run,
  retryDelaySeconds: (next) => Math.min(600, 30 * 2 ** (next - 2)),
  // one partner's slow fetches hold only its share of a worker's slots
  get lanes() {
    return partnerKeys();
  },
};
