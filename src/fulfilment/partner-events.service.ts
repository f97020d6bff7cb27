/**
 * Inbound partner events (table partner_events, owned here). The webhook intake keeps the raw body,
 * lets the partner's connector verify it before anything reads it, parses it into neutral events,
 * stores each once per (partner, event key) with an outbox row (kind partner_event) that applies it,
 * and answers at once: the application (database writes, mail, a call back to the partner) is the
 * worker's. A repeated delivery stores nothing and is answered 200 like the first.
 */
import { performance } from 'node:perf_hooks';
import { execute, withTransaction, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { AuthenticationError, DomainError, InputError, PermissionError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';
import { enqueue, outboxInsertSql, wakeWorkers } from '../shared/outbox.js';
import { logPartnerCall } from './call-log.service.js';
import { connectorOf, WebhookBodyError, type Connector, type Credentials, type PartnerEvent, type WebhookRequest } from './connector.js';
import { missingCredentials, readPartnerCredentials, recentPartnerCredentials } from './credentials/credentials.service.js';
import { PartnerCall } from './partner-call.model.js';
import { PartnerEventRecord } from './partner-event.model.js';
import type { PartnerKey } from './partners.js';
import { PartnerWebhookDrop } from './partner-webhook-drop.model.js';
import { PartnerWebhookNonce } from './partner-webhook-nonce.model.js';
import { webhookConnections, type WebhookConnection } from './webhook-connections.js';
import { recordUnusableWebhook } from './webhook-unusable.js';

export const PARTNER_EVENT_KIND = 'partner_event';

/** How old the credentials a webhook is verified with may be (read by this process): a refusal is always checked against a fresh read. */
const CREDENTIALS_MAX_AGE_MS = 5_000;

/**
 * Resource reads (events with a resolveUrl) received this recently and not applied count as waiting
 * against the cap; older ones have had every attempt (or are dead) and no longer hold a place.
 */
const PENDING_HORIZON_SECONDS = 3600;

/** 417: the partner's connector or credentials are not set up here, so its webhook cannot be verified (nor accepted). */
export class PartnerNotConfiguredError extends DomainError {
  constructor(message: string) {
    super(message, 'PartnerNotConfiguredError', 417);
  }
}

const sql = once(() => {
  const n = sqlFor({ pe: PartnerEventRecord, w: PartnerWebhookNonce, pc: PartnerCall, d: PartnerWebhookDrop });
  const insertEvents = (when: string) =>
    n(`INSERT INTO {@pe} ({pe:partner}, {pe:eventKey}, {pe:reference}, {pe:status}, {pe:event}, {pe:receivedAt})
       SELECT $1, e.event_key, e.reference, e.status, e.event, now() FROM jsonb_to_recordset($2::jsonb) AS e(event_key text, reference text, status text, event jsonb)
        WHERE ${when}
       ON CONFLICT ({pe:partner}, {pe:eventKey}) DO NOTHING RETURNING {pe:id} AS id`);
  return {
    insert: insertEvents('true'),
    // the whole intake of a verified delivery in one statement (one round trip, atomic): its nonce
    // claimed ($3, null when the partner signs none), then, only if the nonce is new and the
    // account's resource reads waiting ($9: the connection's id, '' for the marketplace's) are under
    // the cap ($8, null when the delivery names none to read), its events stored once with the
    // outbox rows that apply them, a drop counted otherwise, and the call logged either way
    intake: n(`WITH nonce AS (
         INSERT INTO {@w} ({w:partner}, {w:nonce}, {w:expiresAt}) SELECT $1, $3, now() + make_interval(secs => $4) WHERE $3::text IS NOT NULL
         ON CONFLICT ({w:partner}, {w:nonce}) DO UPDATE SET {w:expiresAt} = EXCLUDED.{w:expiresAt} WHERE {@w}.{w:expiresAt} < now()
         RETURNING 1),
       fresh AS (SELECT $3::text IS NULL OR EXISTS (SELECT 1 FROM nonce) AS ok),
       cap AS (SELECT $8::int IS NOT NULL AND (SELECT count(*) FROM (SELECT 1 FROM {@pe} WHERE {pe:partner} = $1 AND {pe:appliedAt} IS NULL
           AND ({pe:event} ->> 'resolveUrl') IS NOT NULL AND {pe:receivedAt} > now() - make_interval(secs => ${PENDING_HORIZON_SECONDS})
           AND COALESCE({pe:event} -> 'connection' ->> 'id', '') = $9 LIMIT $8) AS waiting) >= $8 AS at_cap),
       ev AS (${insertEvents('(SELECT ok FROM fresh) AND NOT (SELECT at_cap FROM cap)')}),
       dropped AS (INSERT INTO {@d} ({d:partner}, {d:reason}, {d:count}, {d:lastAt}) SELECT $1, 'pending_cap', 1, now()
         WHERE (SELECT ok FROM fresh) AND (SELECT at_cap FROM cap)
         ON CONFLICT ({d:partner}, {d:reason}) DO UPDATE SET {d:count} = {@d}.{d:count} + 1, {d:lastAt} = EXCLUDED.{d:lastAt} RETURNING 1),
       queued AS (${outboxInsertSql(
         `(SELECT jsonb_agg(jsonb_build_object('kind', $5::text, 'topic', $1::text, 'target', ev.id::text, 'payload', jsonb_build_object('partner_event_id', ev.id, 'partner', $1::text), 'max_attempts', 5)) FROM ev)`,
       )}),
       logged AS (INSERT INTO {@pc} ({pc:partner}, {pc:direction}, {pc:method}, {pc:endpoint}, {pc:httpStatus}, {pc:durationMs}, {pc:outcome}, {pc:error}, {pc:createdAt})
         SELECT $1, 'inbound', 'POST', $6, 200, $7, CASE WHEN NOT ok THEN 'replayed' WHEN EXISTS (SELECT 1 FROM dropped) THEN 'dropped' ELSE 'accepted' END,
           CASE WHEN NOT ok THEN 'nonce seen before: nothing stored' WHEN EXISTS (SELECT 1 FROM dropped) THEN 'resource reads waiting at the cap: nothing stored' END, now() FROM fresh)
       SELECT (SELECT ok FROM fresh) AS fresh, (SELECT count(*) FROM ev)::int AS accepted, EXISTS (SELECT 1 FROM dropped) AS dropped`),
  };
});

/** The rows of partner_events an intake stores: one per event id. */
function eventRows(events: PartnerEvent[]): { unique: PartnerEvent[]; json: string } {
  const unique = [...new Map(events.map((e) => [e.eventId, e])).values()];
  return { unique, json: JSON.stringify(unique.map((e) => ({ event_key: e.eventId.slice(0, 500), reference: e.reference, status: e.status, event: e }))) };
}

/** Stores events not seen before (by partner and event key) with the outbox rows that apply them; answers how many were new. */
export async function storePartnerEvents(partner: PartnerKey, events: PartnerEvent[], opts: { transaction: Tx }): Promise<number> {
  if (events.length === 0) return 0;
  const stored = await execute<{ id: number }>(sql().insert, [partner, eventRows(events).json], opts);
  if (stored.length)
    await enqueue(
      opts.transaction,
      stored.map((r) => ({ kind: PARTNER_EVENT_KIND, topic: partner, target: String(r.id), payload: { partner_event_id: r.id, partner }, maxAttempts: 5 })),
    );
  return stored.length;
}

function refusalOf(status: 400 | 401 | 403, message: string): DomainError {
  return status === 401 ? new AuthenticationError(message) : status === 403 ? new PermissionError(message) : new InputError(message);
}

export interface WebhookAnswer {
  ok: true;
  /** events stored now */
  accepted: number;
  /** events of this delivery already stored (a partner's retry) */
  duplicates: number;
  /** the delivery reused a nonce seen lately: nothing was stored */
  replayed?: true;
  /** the delivery came for a connection that was disconnected: answered so the partner stops, nothing stored */
  ignored?: string;
  /** the account's resource reads waiting were at the cap (issue 24): nothing stored, the drop counted */
  dropped?: true;
  /** a verified delivery with nothing usable in it (issue 26): acknowledged, nothing stored, counted for svc check */
  unusable?: string;
}

/** A connection's events: stamped with it, and keyed apart from the marketplace's (a forged public delivery cannot pre-empt them). */
export function ofConnection(events: PartnerEvent[], connection: WebhookConnection | undefined): PartnerEvent[] {
  if (!connection) return events;
  return events.map((e) => ({ ...e, eventId: `connection:${connection.id}:${e.eventId}`.slice(0, 500), connection }));
}

/**
 * One inbound partner webhook: verified by the partner's connector from the raw bytes (401 and the
 * like when it fails, before the body is read), then its events stored once and queued. A partner
 * whose connector or credentials are missing gets 417 PartnerNotConfiguredError, never a 200 that
 * would drop its event. `connection`: the token of a customer's own connection's target (issue 13):
 * unknown is 401 (nothing read, nothing fetched), disconnected is a 200 that stores nothing.
 */
export async function receivePartnerWebhook(
  partner: PartnerKey,
  rawBody: Buffer,
  rawHeaders: Record<string, unknown>,
  opts: { connection?: string; token?: string } = {},
): Promise<WebhookAnswer> {
  const started = performance.now();
  const endpoint = `/api/method/svc.${partner}.webhook${opts.connection !== undefined ? '?connection' : opts.token !== undefined ? '?token' : ''}`;
  const { log, refuse } = inboundCall(partner, endpoint, started);
  const connector = connectorOf(partner);
  if (!connector)
    return refuse(
      new PartnerNotConfiguredError(`svc.${partner}.webhook: the ${partner} connector is not configured on this service yet; the event was not accepted`),
    );
  let connection: WebhookConnection | undefined;
  if (opts.connection !== undefined) {
    const found = await webhookConnections()?.byToken(partner, opts.connection);
    if (!found) return refuse(new AuthenticationError(`svc.${partner}.webhook: unknown connection`));
    if (found.state === 'disconnected') {
      await log(200, 'ignored', 'the connection was disconnected: nothing stored');
      return { ok: true, accepted: 0, duplicates: 0, ignored: 'the connection was disconnected' };
    }
    connection = found.connection;
  }
  const { missing, req, verdict } = await verifyDelivery(partner, connector, { rawBody, rawHeaders, token: opts.token, connection });
  if (!verdict)
    return refuse(
      new PartnerNotConfiguredError(`svc.${partner}.webhook: ${partner} credentials are not configured (${missing.join(', ')}); the event was not accepted`),
    );
  if (!verdict.ok) return refuse(refusalOf(verdict.status, verdict.message));
  let events: PartnerEvent[];
  try {
    events = ofConnection(connector.parseWebhook(req), connection);
  } catch (err) {
    if (err instanceof WebhookBodyError) return acknowledgeUnusable(partner, err, rawBody, log);
    throw err;
  }
  return storeDelivery(partner, events, verdict.replayKey, { endpoint, started, connection });
}

/** Logs an inbound call (in `transaction` when given). */
type LogCall = (httpStatus: number, outcome: string, error?: string, transaction?: Tx) => Promise<unknown>;

/** The call log of one delivery: `log` its outcome, or `refuse` it (logged, then thrown). */
function inboundCall(partner: PartnerKey, endpoint: string, started: number) {
  const log: LogCall = (httpStatus, outcome, error, transaction) =>
    logPartnerCall(
      { partner, direction: 'inbound', method: 'POST', endpoint, httpStatus, durationMs: Math.round(performance.now() - started), outcome, error },
      { transaction },
    );
  const refuse = async (err: DomainError): Promise<never> => {
    await log(err.status, err.status === 417 ? 'not_configured' : 'rejected', err.message);
    throw err;
  };
  return { log, refuse };
}

/**
 * The delivery checked by the connector against the partner's credentials: those this process read
 * within the last few seconds (a read per webhook would be a round trip each); a refusal is only
 * ever made from credentials read now. No verdict when credentials are missing.
 */
async function verifyDelivery(
  partner: PartnerKey,
  connector: Connector,
  delivery: { rawBody: Buffer; rawHeaders: Record<string, unknown>; token: string | undefined; connection: WebhookConnection | undefined },
) {
  const headers: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(delivery.rawHeaders))
    headers[k.toLowerCase()] = Array.isArray(v) ? String(v[0]) : v === undefined ? undefined : String(v);
  const receivedAt = new Date();
  const { rawBody, token, connection } = delivery;
  const check = async (credentials: Credentials) => {
    const missing = missingCredentials(partner, credentials);
    const req: WebhookRequest = { rawBody, headers, credentials, receivedAt, targetToken: token, viaConnection: connection !== undefined };
    return { missing, req, verdict: missing.length ? undefined : await connector.verifyWebhook(req) };
  };
  const recent = await recentPartnerCredentials(partner, CREDENTIALS_MAX_AGE_MS);
  const checked = await check(recent.credentials);
  if (!checked.verdict?.ok && recent.cached) return check((await readPartnerCredentials(partner)).credentials);
  return checked;
}

/**
 * The delivery's events stored once (a partner's retry is a duplicate, a reused nonce a replay,
 * resource reads over the cap a drop) and queued, the call logged: one statement.
 */
async function storeDelivery(
  partner: PartnerKey,
  events: PartnerEvent[],
  replay: { key: string; keepSeconds: number } | undefined,
  call: { endpoint: string; started: number; connection: WebhookConnection | undefined },
): Promise<WebhookAnswer> {
  const { unique, json } = eventRows(events);
  const reads = unique.some((e) => e.resolveUrl);
  const [row] = await execute<{ fresh: boolean; accepted: number; dropped: boolean }>(sql().intake, [
    partner,
    json,
    replay ? replay.key.slice(0, 200) : null,
    replay?.keepSeconds ?? 0,
    PARTNER_EVENT_KIND,
    call.endpoint.slice(0, 300),
    Math.round(performance.now() - call.started),
    reads ? runtime().config.partners.shipperPendingFetches : null,
    call.connection?.id ?? '',
  ]);
  if (row.accepted > 0) wakeWorkers();
  if (row.dropped) return { ok: true, accepted: 0, duplicates: 0, dropped: true };
  // a reused nonce is answered like a duplicate: a partner retrying a delivery whose answer it lost must not see a failure
  if (!row.fresh) return { ok: true, accepted: 0, duplicates: unique.length, replayed: true };
  return { ok: true, accepted: row.accepted, duplicates: unique.length - row.accepted };
}

/**
 * A verified delivery the connector could not use (issue 26): answered 200 (the partner must neither
 * retry it nor give up on the subscription), counted with its problem and shape, and logged.
 */
async function acknowledgeUnusable(partner: PartnerKey, err: WebhookBodyError, rawBody: Buffer, log: LogCall): Promise<WebhookAnswer> {
  await withTransaction(undefined, async (transaction) => {
    await recordUnusableWebhook(partner, { topic: err.topic, problem: err.message, rawBody }, { transaction });
    await log(200, 'unusable', `acknowledged, nothing stored: ${err.message}`, transaction);
  });
  return { ok: true, accepted: 0, duplicates: 0, unusable: err.message };
}

export interface PartnerWebhookDropRow {
  partner: string;
  reason: string;
  count: number;
  lastAt: Date;
  lastProblem: string | null;
  lastExample: string | null;
}

/** Webhooks dropped unread (resource reads waiting at the cap, issue 24; unusable deliveries, issue 26), per partner and reason, for svc check. */
export async function partnerWebhookDrops(): Promise<PartnerWebhookDropRow[]> {
  const rows = await PartnerWebhookDrop.findAll({
    order: [
      ['partner', 'ASC'],
      ['reason', 'ASC'],
    ],
    raw: true,
  });
  return rows.map((r) => ({
    partner: r.partner,
    reason: r.reason,
    count: Number(r.count),
    lastAt: new Date(r.lastAt),
    lastProblem: r.lastProblem ?? null,
    lastExample: r.lastExample ?? null,
  }));
}
