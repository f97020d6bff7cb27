/**
 * The connector interface: what one fulfilment partner's folder (src/connectors/<partner>/) gives the
 * service, and the registry src/modules.ts fills. A connector is pure partner knowledge: how to
 * build and send the partner's order, how to recognise and read its webhooks, which statuses it
 * reports in which order. It never touches the database: the framework around it (router, partner
 * order handler, webhook intake, event application) does every write, in transactions, through the
 * outbox; so a connector is the same few hundred lines whatever the partner.
 *
 * Writing a connector (see otcpartner/ for a complete one):
 * 1. `export const xConnector: Connector = { ...PARTNERS.x, statuses, createOrder, testCredentials,
 *    verifyWebhook, parseWebhook }` and `registerConnector(xConnector)` in src/modules.ts.
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
import type { PartnerKey, PartnerSpec } from './partners.js';
import type { WebhookConnection } from './webhook-connections.js';

/** Credential values by spec field name (decrypted; only what is stored). */
export type Credentials = Readonly<Record<string, string>>;

/** Sales Order partner fields by spec wire name (e.g. otc_reference), as a connector reports them. */
export type PartnerFields = Record<string, string | null>;

/** What the framework reads for a partner order: the Sales Order as the partner needs it. */
export interface PartnerOrderInput {
  partner: PartnerKey;
  partnerOrderId: number;
  salesOrder: string;
  /** send this where the partner deduplicates (otc reference, shipper orderKey, peptide partnerOrderId) */
  dedupeKey: string;
  /** 1 on the first send; the same dedupe key on every attempt */
  attempt: number;
  order: {
    name: string;
    customer: string;
    customer_name: string;
    email: string | null;
    transaction_date: string;
    currency: string;
    grand_total: number;
    is_503a: boolean;
  };
  shipTo: ShipTo;
  lines: PartnerLine[];
  /**
   * rxpartner only: the order's patient (a 503A order's checkout_patient_*), read for the partner and
   * audited; null when the order has none. Goes to the partner only: never into a log, an error or
   * an outcome.
   */
  patient?: PartnerPatient | null;
  /** rxpartner only: the prescriber's NPI (checkout_npi_number), null when the order has none */
  prescriberNpi?: string | null;
}

/** A patient as the pharmacy partner needs it. `key` is an opaque HMAC of who it is (no patient data). */
export interface PartnerPatient {
  key: string;
  firstName: string;
  lastName: string;
  /** YYYY-MM-DD */
  dateOfBirth: string;
  gender: string | null;
}

export interface ShipTo {
  name: string;
  company: string | null;
  street1: string;
  street2: string | null;
  city: string;
  state: string | null;
  postalCode: string | null;
  country: string;
  /** ISO 3166-1 alpha-2 when known (US for "United States") */
  countryCode: string;
  phone: string | null;
  email: string | null;
}

export interface PartnerLine {
  idx: number;
  item_code: string;
  item_name: string;
  qty: number;
  uom: string;
  rate: number;
  amount: number;
  /** the product mapping value: the partner's id of the product (otc serviceSKU, shipper sku, …) */
  partner_sku: string;
  /** rxpartner only: the item is a prescription (a 503A item, or Rx attribute is_rx) */
  prescription?: boolean;
}

export type CreateOutcome =
  /** the partner has the order: `reference` is its id of it, `status` the spec status to record */
  | { kind: 'created'; reference: string; status: string; fields: PartnerFields }
  /**
   * send again later with the same dedupe key (5xx, 429, timeout); null = the handler's schedule.
   * `budget`: nothing was sent because the partner's rate budget is spent: the order waits
   * `afterSeconds` without spending an attempt (a queue behind a rate limit is never failed for it).
   */
  | { kind: 'retry'; afterSeconds: number | null; reason: string; budget?: boolean }
  /** the partner refused; `permanent` stops retrying; `fields` (e.g. otc_status Failed) are written */
  | { kind: 'failed'; reason: string; permanent: boolean; fields?: PartnerFields }
  /** missing or wrong configuration: nothing is retried until operators act */
  | { kind: 'awaiting_configuration'; reason: string };

/** What a partner said to a cancellation of an order it has. */
export type CancelOutcome =
  /** the partner cancelled it; `status` the spec status to record (e.g. peptide Cancelled), when the partner has one */
  | { kind: 'cancelled'; status: string | null; detail: string }
  /** the partner cannot cancel it (e.g. it shipped): operations must act, the reason says why */
  | { kind: 'refused'; reason: string }
  /** ask again later (5xx, 429, a spent budget: `budget` spends no attempt) */
  | { kind: 'retry'; afterSeconds: number | null; reason: string; budget?: boolean };

/** One HTTP call to a partner, logged (method, endpoint, status, duration, outcome; never headers or bodies). */
export interface PartnerRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  /** how the call log names it, without ids or secrets, e.g. `POST /api/receivers/orders/inbound` (default: method and path) */
  endpoint?: string;
  headers?: Record<string, string>;
  /** sent as JSON */
  json?: unknown;
  /** sent as is */
  body?: string | Buffer;
  timeoutMs?: number;
}

export interface PartnerResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** the body as text (capped at 1 MB) */
  text: string;
  /** the body parsed as JSON, or undefined when it is not JSON */
  json: unknown;
  durationMs: number;
}

/** Thrown by PartnerHttp for a timeout or a connection failure (never for an HTTP status). */
export class PartnerCallError extends Error {
  constructor(
    message: string,
    readonly kind: 'timeout' | 'connection_error' | 'refused',
  ) {
    super(message);
  }
}

export interface PartnerHttp {
  request(req: PartnerRequest): Promise<PartnerResponse>;
}

/** Rate budgets kept in the database, shared by every process (src/shared/rate-budget.ts). */
export interface PartnerBudget {
  /** One request of a sliding window (`limit` per `windowSeconds`); waits up to `maxWaitMs` for a slot. */
  slot(
    bucket: string,
    rule: { limit: number; windowSeconds: number; reserve?: number },
    maxWaitMs?: number,
  ): Promise<{ ok: true } | { ok: false; waitMs: number }>;
  /** `cost` units of a token bucket (`capacity`, refilled `restorePerSecond`); waits up to `maxWaitMs`. */
  tokens(
    bucket: string,
    rule: { capacity: number; restorePerSecond: number; cost: number },
    maxWaitMs?: number,
  ): Promise<{ ok: true } | { ok: false; waitMs: number }>;
  /** Tells every process the partner's own figure (e.g. currentlyAvailable of a cost bucket). */
  report(bucket: string, available: number): Promise<void>;
  /** Holds the bucket for every process for `seconds` (the partner answered 429 with a reset time). */
  hold(bucket: string, seconds: number): Promise<void>;
  /**
   * `slot`, taken ahead of the request that will use it: on success the slot is kept for this
   * context, and the next `slot` of the same bucket is answered from it (counted once, not twice).
   */
  takeAhead(bucket: string, rule: { limit: number; windowSeconds: number }): Promise<{ ok: true } | { ok: false; waitMs: number }>;
}

/** An access token shared by every worker process (kept encrypted in the database). */
export interface TokenCache {
  /**
   * The cached token of `key` while it stays valid `marginSeconds` more; else one process calls
   * `fetch` (the others wait for its answer, up to `waitMs`) and every process uses what it got.
   * `fetch` throws to say why there is no token; that error reaches the caller as thrown.
   */
  get(key: string, fetch: () => Promise<{ token: string; expiresAt: Date }>, opts: { marginSeconds: number; waitMs?: number }): Promise<string>;
  /** Drops `token` when it is still the cached one (the partner refused it): the next get fetches. */
  drop(key: string, token: string): Promise<void>;
}

export type PatientStatus = 'pending' | 'active' | 'failed';

/** The partner's ids of a customer's patients (kept by org, where ensure_patient finds them too). */
export interface PatientRegistry {
  find(customer: string, patientKey: string): Promise<{ id: string; status: PatientStatus; detail: string | null } | null>;
  /** Records the partner's id and status (`detail`: the partner's reason, never patient data). */
  remember(customer: string, patientKey: string, patient: { id: string; status: PatientStatus; detail?: string | null }): Promise<void>;
}

export interface ConnectorContext {
  credentials: Credentials;
  http: PartnerHttp;
  budget: PartnerBudget;
  /** aborted when the worker stops */
  signal: AbortSignal;
  /** partner limits from config (e.g. rxpartner's window), by partner */
  limits: Readonly<Record<string, number>>;
  /** shared access tokens (connectorContext() gives them; a connector needing one fails without) */
  tokens?: TokenCache;
  /** the partner's ids of patients (connectorContext() gives them when sending an order) */
  patients?: PatientRegistry;
  /** checks a prescriber's NPI (check digit, then the NPI registry, cached) before a prescription is sent (issue 13) */
  npi?: (npi: string) => Promise<PrescriberCheck>;
}

/** The verdict on a prescriber's NPI; `retry`: the registry could not answer (nothing was sent, asked again later). */
export type PrescriberCheck = { ok: true } | { ok: false; retry: boolean; message: string };

/** A webhook as received: the raw body bytes, before anything parsed them. */
export interface WebhookRequest {
  rawBody: Buffer;
  /** header names in lower case */
  headers: Readonly<Record<string, string | undefined>>;
  credentials: Credentials;
  receivedAt: Date;
  /** the `token` query parameter of the target the delivery came to (the marketplace shipper account's, issue 24) */
  targetToken?: string;
  /** it came to a customer's own connection's target, whose token the intake has already matched (issue 13) */
  viaConnection?: boolean;
}

export type WebhookVerdict =
  /** `replayKey`: the delivery's nonce, kept `keepSeconds`; a delivery reusing it stores nothing */
  { ok: true; replayKey?: { key: string; keepSeconds: number } } | { ok: false; status: 400 | 401 | 403; message: string };

/** A partner's status report, neutral: what the event application needs, whatever the partner. */
export interface PartnerEvent {
  partner: PartnerKey;
  /** dedupe key of the event: the partner's event or delivery id, else reference + status (+ tracking) */
  eventId: string;
  /** the partner's reference of the order, or our dedupe key (the Sales Order name) it echoes */
  reference: string;
  /** the spec's status for the partner (e.g. Shipped), or null when the event changes no status */
  status: string | null;
  /** the status as the partner wrote it */
  statusText: string | null;
  tracking: { number: string | null; url: string | null; carrier: string | null } | null;
  /** the partner's event type (order.shipped, SHIP_NOTIFY, orders/fulfilled…) */
  rawType: string;
  occurredAt: string | null;
  /** a URL the worker must read (with the partner's credentials) to complete the event (shipper) */
  resolveUrl?: string;
  /**
   * The event is about a patient, not an order (rxpartner PATIENT_CREATION_*): `reference` is the
   * partner's patient id; the event applies to the partner order whose sending created the patient.
   */
  patient?: { status: PatientStatus; detail: string | null };
  /** what operations must do by hand (shown on the partner order, logged; `{sales_order}` becomes the order's name); never patient data */
  followUp?: string;
  /**
   * The event came through a customer's own connection's webhook target (issue 13): its resolveUrl is
   * read with that connection's credentials, and it applies only to that customer's orders.
   */
  connection?: WebhookConnection;
}

/** Thrown by resolveEvent or poll when the partner's rate budget is spent: asked again after `waitSeconds`, no attempt spent. */
export class PartnerBudgetWait extends Error {
  constructor(
    readonly waitSeconds: number,
    message = 'the partner rate budget is spent',
  ) {
    super(message);
  }
}

/**
 * Thrown by parseWebhook for a verified body it cannot use (not JSON, no order named): the intake
 * acknowledges it (200, so the partner neither retries nor drops its subscription) and counts it for
 * operators per partner and `topic` (the delivery's topic or event type, when it names one).
 */
export class WebhookBodyError extends Error {
  constructor(
    message: string,
    readonly topic: string | null = null,
  ) {
    super(message);
  }
}

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

/** Registers a partner's connector (called once per process, from src/modules.ts). */
export function registerConnector(connector: Connector): void {
  connectors.set(connector.key, connector);
}

/** The connector of a partner, or undefined while its release has none. */
export function connectorOf(partner: string): Connector | undefined {
  return connectors.get(partner as PartnerKey);
}

export function registeredPartners(): PartnerKey[] {
  return [...connectors.keys()];
}
