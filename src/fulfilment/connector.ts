/**
 * The connector interface: what one fulfilment partner's folder (src/partners/<partner>/) gives the
 * service, and the registry src/modules.ts fills from src/partners/index.ts. A connector is pure partner knowledge: how to
 * build and send the partner's order, how to recognise and read its webhooks, which statuses it
 * reports in which order. It never touches the database: the framework around it (router, partner
 * order handler, webhook intake, event application) does every write, in transactions, through the
 * outbox; so a connector is the same few hundred lines whatever the partner.
 *
 * Writing a connector (see src/partners/otcpartner/ for a complete one; docs/development/partners.md):
 * 1. `export const xConnector: Connector = { ...xSpec, statuses, createOrder, testCredentials,
 *    verifyWebhook, parseWebhook }` (the spec in x.spec.ts), and one line in src/partners/index.ts.
 * 2. createOrder builds the partner's payload from PartnerOrderInput (the Sales Order's head, ship-to
 *    and the partner's lines with their partner SKU), sends it with `ctx.http` (every call logged,
 *    timeout, no redirects) under the partner's budget (`ctx.budget`, kept in the database, shared by
 *    every worker), sends `input.dedupeKey` where the partner deduplicates, and answers an outcome:
 *    `created` with the Sales Order fields to write; `retry` (the worker sends it again after
 *    `afterSeconds`, same dedupe key); `failed` (permanent or not); `awaiting_configuration` (the
 *    operators must act; re-driven automatically when the partner's credentials are set). Throwing
 *    counts as a retry.
 * 3. verifyWebhook sees the raw body bytes and the headers (lower-case names) and answers before
 *    anything is parsed; parseWebhook turns a verified body into neutral PartnerEvents. The intake
 *    stores each event once per (partner, eventId) and applies it later, forward only, by
 *    `statuses.rank`. Status values are the spec's for the partner (e.g. otc_status Shipped).
 * 4. Optional: poll (status polling by the worker), resolveEvent (an event that must be completed by
 *    a call to the partner, e.g. shipper's resource_url, done by the worker, never in the webhook).
 * 5. What a connector must keep between calls lives behind ports of the context, never in its own
 *    tables: `ctx.tokens` (an access token shared by every process, encrypted at rest),
 *    `ctx.patients` (the partner's id of a customer's patient, kept by org). A webhook verdict may
 *    name a replay key (rxpartner's nonce): the intake keeps it, and a delivery reusing it has no effect.
 */
import type { Stage } from '../vendor-api/stages.js';
import type { ConnectorContext } from './connector-context.js';
import type { CancelOutcome, CreateOutcome, PartnerOrderInput } from './connector-io.js';
import type { PartnerEvent, WebhookRequest, WebhookVerdict } from './connector-webhooks.js';
import { registerPartnerSpec, type PartnerKey, type PartnerSpec } from './partners.js';

export * from './connector-io.js';
export * from './connector-context.js';
export * from './connector-webhooks.js';

export interface PartnerStatuses {
  /** written on the Sales Order when the partner accepts the order (e.g. otc Synced) */
  created: string;
  /** forward order: a status applies only over one of lower rank (equal rank only adds tracking) */
  rank: Readonly<Record<string, number>>;
  /** nothing moves after these */
  terminal: readonly string[];
  /** the fulfilment stage of each status (aggregate_shipments, shipments.status); shipped stages move the order to To Bill */
  stage: Readonly<Record<string, Stage>>;
}

export interface Connector extends PartnerSpec {
  statuses: PartnerStatuses;
  /** Sends the partner order once (same dedupe key on every attempt) and says what happened. */
  createOrder(input: PartnerOrderInput, ctx: ConnectorContext): Promise<CreateOutcome>;
  /**
   * For a partner whose budget the first request of every create draws from, known from the
   * credentials alone (rxpartner's account window): takes that slot ahead (ctx.budget.takeAhead)
   * before the order's details are read, and answers the budget retry when it is spent, else null.
   * A spent budget then defers the attempt without reading the order, its lines or its patient.
   */
  reserveCreate?(ctx: ConnectorContext): Promise<Extract<CreateOutcome, { kind: 'retry' }> | null>;
  /** One harmless authenticated call (`svc partner-credentials test`): what the partner answered. */
  testCredentials(ctx: ConnectorContext): Promise<{ ok: boolean; detail: string; httpStatus?: number }>;
  /**
   * Cancels an order the partner has (the Sales Order was cancelled). A partner without a cancel API
   * has none: its orders are marked for manual cancellation, never pretended cancelled.
   */
  cancelOrder?(
    order: { reference: string | null; dedupeKey: string; salesOrder: string; customer?: string | null },
    ctx: ConnectorContext,
  ): Promise<CancelOutcome>;
  /** The partner's current status of an order, for partners that are polled. */
  poll?(order: { reference: string | null; dedupeKey: string; salesOrder: string }, ctx: ConnectorContext): Promise<PartnerEvent[]>;
  /** Checks a webhook's authenticity from the raw bytes and headers, before anything reads the body. */
  verifyWebhook(req: WebhookRequest): WebhookVerdict | Promise<WebhookVerdict>;
  /** The events of a verified body (none for event types the service does not use: answered 200). */
  parseWebhook(req: WebhookRequest): PartnerEvent[];
  /** Completes an event that carries `resolveUrl` (run by the worker). */
  resolveEvent?(event: PartnerEvent, ctx: ConnectorContext): Promise<PartnerEvent[]>;
}

const connectors = new Map<PartnerKey, Connector>();

/** Registers a partner's connector and its spec (called once per process, from src/modules.ts). */
export function registerConnector(connector: Connector): void {
  registerPartnerSpec(connector);
  connectors.set(connector.key, connector);
}

/** The connector of a partner, or undefined while its release has none. */
export function connectorOf(partner: string): Connector | undefined {
  return connectors.get(partner);
}

export function registeredPartners(): PartnerKey[] {
  return [...connectors.keys()];
}
