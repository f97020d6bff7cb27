/** What the framework gives a connector for each call: HTTP, budgets, tokens, patients (src/fulfilment/connector.ts). */
import type { Credentials } from './connector-io.js';

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
