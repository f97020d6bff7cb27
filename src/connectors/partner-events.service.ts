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
import { enqueue } from '../shared/outbox.js';
import { logPartnerCall } from './call-log.service.js';
import { connectorOf, WebhookBodyError, type PartnerEvent, type WebhookRequest } from './connector.js';
import { loadPartnerCredentials, missingCredentials } from './credentials/credentials.service.js';
import { PartnerEventRecord } from './partner-event.model.js';
import type { PartnerKey } from './partners.js';
import { claimWebhookNonce } from './webhook-nonces.service.js';
import { webhookConnections, type WebhookConnection } from './webhook-connections.js';

export const PARTNER_EVENT_KIND = 'partner_event';

/** 417: the partner's connector or credentials are not set up here, so its webhook cannot be verified (nor accepted). */
export class PartnerNotConfiguredError extends DomainError {
  constructor(message: string) {
    super(message, 'PartnerNotConfiguredError', 417);
  }
}

const sql = once(() => {
  const n = sqlFor({ pe: PartnerEventRecord });
  return {
    insert: n(`INSERT INTO {@pe} ({pe:partner}, {pe:eventKey}, {pe:reference}, {pe:status}, {pe:event}, {pe:receivedAt})
       SELECT $1, e.event_key, e.reference, e.status, e.event, now() FROM jsonb_to_recordset($2::jsonb) AS e(event_key text, reference text, status text, event jsonb)
       ON CONFLICT ({pe:partner}, {pe:eventKey}) DO NOTHING RETURNING {pe:id} AS id`),
  };
});

/** Stores events not seen before (by partner and event key) with the outbox rows that apply them; answers how many were new. */
export async function storePartnerEvents(partner: PartnerKey, events: PartnerEvent[], opts: { transaction: Tx }): Promise<number> {
  if (events.length === 0) return 0;
  const unique = [...new Map(events.map((e) => [e.eventId, e])).values()];
  const rows = JSON.stringify(unique.map((e) => ({ event_key: e.eventId.slice(0, 500), reference: e.reference, status: e.status, event: e })));
  const stored = await execute<{ id: number }>(sql().insert, [partner, rows], opts);
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
  opts: { connection?: string } = {},
): Promise<WebhookAnswer> {
  const started = performance.now();
  const endpoint = `/api/method/svc.${partner}.webhook${opts.connection === undefined ? '' : '?connection'}`;
  const log = (httpStatus: number, outcome: string, error?: string, transaction?: Tx) =>
    logPartnerCall(
      { partner, direction: 'inbound', method: 'POST', endpoint, httpStatus, durationMs: Math.round(performance.now() - started), outcome, error },
      { transaction },
    );
  const refuse = async (err: DomainError): Promise<never> => {
    await log(err.status, err.status === 417 ? 'not_configured' : 'rejected', err.message);
    throw err;
  };
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
  const credentials = await loadPartnerCredentials(partner);
  const missing = missingCredentials(partner, credentials);
  if (missing.length)
    return refuse(
      new PartnerNotConfiguredError(`svc.${partner}.webhook: ${partner} credentials are not configured (${missing.join(', ')}); the event was not accepted`),
    );
  const headers: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(rawHeaders)) headers[k.toLowerCase()] = Array.isArray(v) ? String(v[0]) : v === undefined ? undefined : String(v);
  const req: WebhookRequest = { rawBody, headers, credentials, receivedAt: new Date() };
  const verdict = await connector.verifyWebhook(req);
  if (!verdict.ok) return refuse(refusalOf(verdict.status, verdict.message));
  let events: PartnerEvent[];
  try {
    events = ofConnection(connector.parseWebhook(req), connection);
  } catch (err) {
    if (err instanceof WebhookBodyError) return refuse(new InputError(err.message));
    throw err;
  }
  return withTransaction(undefined, async (transaction): Promise<WebhookAnswer> => {
    const replay = verdict.replayKey;
    if (replay && !(await claimWebhookNonce(partner, replay.key, replay.keepSeconds, { transaction }))) {
      // answered like a duplicate: a partner retrying a delivery whose answer it lost must not see a failure
      await log(200, 'replayed', 'nonce seen before: nothing stored', transaction);
      return { ok: true, accepted: 0, duplicates: new Set(events.map((e) => e.eventId)).size, replayed: true };
    }
    const accepted = await storePartnerEvents(partner, events, { transaction });
    await log(200, 'accepted', undefined, transaction);
    return { ok: true, accepted, duplicates: new Set(events.map((e) => e.eventId)).size - accepted };
  });
}
