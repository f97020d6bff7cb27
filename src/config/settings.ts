/** The shape of the validated Config and of its settings groups (the schema in schema.ts checks it). */

export type Environment = 'development' | 'test' | 'production' | 'sandbox';

export interface Config {
  env: Environment;
  port: number;
  host: string;
  baseUrl: string;
  databaseUrl?: string;
  logLevel: string;
  /** IANA time zone of every time a person reads (CLI, mails): ISO 8601 with its offset (src/shared/time.ts) */
  timeZone: string;
  /** json: one JSON object a line; pretty: readable lines; auto: pretty on a terminal in development, json otherwise */
  logFormat: 'auto' | 'json' | 'pretty';
  secretKey: string;
  /** during a rotation of secretKey: the key it replaces, still accepted for vendor tokens and key secrets ('' when none) */
  secretKeyPrevious: string;
  encryptionKey: string;
  /** during a rotation of encryptionKey: the key it replaces, still read until `svc keys rotate` re-sealed everything ('' when none) */
  encryptionKeyPrevious: string;
  smtpUrl?: string;
  mailFrom: string;
  mailDir: string;
  /** SMTP: the longest wait to connect, for the greeting, and for any answer */
  mailTimeoutMs: number;
  filesDir: string;
  embeddedPg: { dataDir: string; port: number };
  session: { idleMinutes: number; absoluteHours: number };
  /** how long a process keeps a verified API key (0: never); changes to keys, users and vendors reach its requests within it */
  apiKeyCacheMs: number;
  /** failed logins from one client address (any accounts) before it gets 429, within a window from the first */
  login: { addressFailures: number; addressWindowSeconds: number };
  /** portal password resets asked (e-mails sent or not) per hour: per e-mail address asked for, and per client address */
  passwordReset: { perAddressPerHour: number; perClientPerHour: number };
  /** trustedProxies: addresses whose X-Forwarded-For is believed (none by default: the peer address is the client's) */
  http: { bodyLimitBytes: number; uploadLimitBytes: number; corsOrigins: string[]; maxPageLength: number; trustedProxies: string[] };
  /** per account (user or vendor): uploads in any rolling hour, and the bytes of all its stored files */
  uploads: { perHour: number; quotaBytes: number };
  db: { poolMax: number; statementTimeoutMs: number; lockTimeoutMs: number };
  /** nice: the standalone `svc worker`'s CPU priority, as nice(1) counts it (0 keeps the inherited one) */
  /** partnerShare: the most of a worker's slots one partner's rows may hold (a bulkhead; 0-1 of concurrency, at least one slot) */
  worker: { pollMs: number; leaseSeconds: number; concurrency: number; batchSize: number; nice: number; partnerShare: number };
  /** a stop signal's bound: jobs get this long, then are abandoned to their leases and the process exits */
  shutdownTimeoutSeconds: number;
  /** days each growing table keeps its rows (issue 25 §7); batchSize: rows per DELETE of the retention job */
  retention: RetentionSettings;
  /** the operations port (issue 25): /livez, /readyz, /metrics; port for serve and start, workerPort for svc worker (0: a free port) */
  ops: { host: string; port: number; workerPort: number; metrics: boolean };
  /**
   * OpenTelemetry tracing (issue 25 §4), on when `endpoint` is set: read by bin/svc from the standard
   * OTEL_* variables before anything loads (src/shared/tracing-sdk.ts); here for validation and docs
   */
  tracing: { endpoint: string; serviceName: string; sampleRatio: number; context: '' | 'promise-hooks' | 'async-local-storage' };
  webhook: { timeoutMs: number; allowPrivateTargets: boolean; retryTimeScale: number };
  partners: PartnerSettings;
  /** `svc start` (npm start) in development: the five partner simulators and demo mappings */
  demo: { partners: boolean; partnersPort: number; advanceSeconds: number };
  sales: SalesSettings;
  nppes: NppesSettings;
  /** remindDays: the worker re-sends an open recall's notice to a customer that has not acknowledged it this many days after the last one (0: never) */
  recalls: { remindDays: number };
}

export interface RetentionSettings {
  outboxDays: number;
  partnerCallsDays: number;
  partnerEventsDays: number;
  vendorApiLogDays: number;
  passwordResetsDays: number;
  auditDays: number;
  batchSize: number;
}

/** The audit trail is kept at least six years (2192 days cover any six with their leap days). */
export const AUDIT_MIN_DAYS = 2192;

/** A commission plan (issue 14): base rate, tiers by month-to-date sales, the sub-rep slice bound, the manager override. */
export interface CommissionPlan {
  /** % of a sale: the base commission (a sub-rep's sales earn this, split with the inviting rep) */
  baseRatePct: number;
  /** by month-to-date own sales, ascending `fromMtd`; the reached tier's rate applies to all of the month's own sales */
  tiers: { name: string; fromMtd: number; ratePct: number }[];
  /** the largest `subrep_pct` a rep on this plan may give a sub-rep it invites */
  maxSubrepPct: number;
  /** % of the month's sales of everyone below a manager on this plan */
  managerOverridePct: number;
}

/** The sales team (issue 14): commission plans, levels by lifetime sales, invitation lifetime. */
export interface SalesSettings {
  defaultPlan: string;
  plans: Record<string, CommissionPlan>;
  /** ascending `fromSales` (lifetime credited sales) */
  levels: { level: number; name: string; fromSales: number }[];
  invitationHours: number;
}

/** The national provider registry (NPPES API) that prescriber NPIs are checked against (issue 13). */
export interface NppesSettings {
  /** registry address (`{baseUrl}/api/?version=2.1&number=<npi>`); '' = no registry check (development and test only) */
  baseUrl: string;
  timeoutMs: number;
  /** how long a registry answer (found) is kept */
  ttlSeconds: number;
  /** how long "not in the registry" is kept (a new provider appears within a day) */
  notFoundTtlSeconds: number;
}

/** Partner connectors (issue 12): timeouts, the sandbox rule and the partners' rate budgets. */
export interface PartnerSettings {
  /** per partner call */
  timeoutMs: number;
  /** sandbox: partner calls go only to loopback simulators (forced on in sandbox) */
  simulatorsOnly: boolean;
  /** attempts of one partner order before it is marked failed */
  maxAttempts: number;
  /** a worker waits this long at most for a budget slot, else reschedules the attempt */
  budgetWaitMs: number;
  rxpartnerLimit: number;
  rxpartnerWindowSeconds: number;
  shipperLimit: number;
  shipperWindowSeconds: number;
  /** shipper requests of each window that only orders may take: webhook resource reads stop short of them (issue 24) */
  shipperOrderReserve: number;
  /** shipper webhook resource reads waiting per account at most; more are dropped and counted (issue 24) */
  shipperPendingFetches: number;
  storeCapacity: number;
  storeRestorePerSecond: number;
  /** the store order import re-reads orders updated this long before its cursor (the store's search index may lag) */
  storeOrdersOverlapSeconds: number;
}
