import { readFileSync, existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Joi from 'joi';
import { encryptionKeyProblem, secretKeyProblem } from './secret-strength.js';

/** An IANA time zone name this Node knows (Intl throws a RangeError on any other). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone.trim() !== '';
  } catch {
    return false;
  }
}

/** Project root (two levels above dist/src/config or src/config). */
export const projectRoot = resolve(
  dirname(fileURLToPath(import.meta.url)),
  existsSync(resolve(dirname(fileURLToPath(import.meta.url)), '../../../package.json')) ? '../../..' : '../..',
);

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
  tracing: { endpoint: string; serviceName: string; sampleRatio: number };
  webhook: { timeoutMs: number; allowPrivateTargets: boolean; retryTimeScale: number };
  partners: PartnerSettings;
  /** `svc start` (npm start) in development: the five partner simulators and demo mappings */
  demo: { partners: boolean; partnersPort: number; advanceSeconds: number };
  sales: SalesSettings;
  nppes: NppesSettings;
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

/** Settings that an environment variable overrides: variable → dotted config path and type. */
export const ENV_VARS: Record<string, { path: string; type: 'string' | 'number' | 'boolean' | 'list'; doc: string }> = {
  DATABASE_URL: { path: 'databaseUrl', type: 'string', doc: 'PostgreSQL URL; unset → embedded PostgreSQL (npm start)' },
  PORT: { path: 'port', type: 'number', doc: 'HTTP port of svc serve' },
  HOST: { path: 'host', type: 'string', doc: 'HTTP bind address' },
  SVC_BASE_URL: { path: 'baseUrl', type: 'string', doc: 'Public base URL (links in mail, docs)' },
  SVC_SECRET_KEY: {
    path: 'secretKey',
    type: 'string',
    doc: 'Signs vendor tokens and peppers key hashes (≥ 32 chars; production: random, docs/operations.md "Secrets")',
  },
  SVC_SECRET_KEY_PREVIOUS: {
    path: 'secretKeyPrevious',
    type: 'string',
    doc: 'During a rotation of SVC_SECRET_KEY: the key it replaces, still accepted for vendor tokens, API secrets and client secrets (docs/operations.md)',
  },
  SVC_ENCRYPTION_KEY: {
    path: 'encryptionKey',
    type: 'string',
    doc: 'AES-256-GCM key for secrets and patient data at rest (base64 of 32 random bytes, docs/operations.md "Secrets")',
  },
  SVC_ENCRYPTION_KEY_PREVIOUS: {
    path: 'encryptionKeyPrevious',
    type: 'string',
    doc: 'During a rotation of SVC_ENCRYPTION_KEY: the key it replaces, still read until `svc keys rotate` has re-sealed every value (docs/operations.md)',
  },
  SMTP_URL: { path: 'smtpUrl', type: 'string', doc: 'smtp://user:pass@host:port; unset in development → .eml files' },
  SVC_MAIL_FROM: { path: 'mailFrom', type: 'string', doc: 'From address of outgoing mail' },
  SVC_MAIL_DIR: { path: 'mailDir', type: 'string', doc: 'Where mail is written when SMTP_URL is unset' },
  SVC_MAIL_TIMEOUT_MS: { path: 'mailTimeoutMs', type: 'number', doc: 'SMTP: longest wait to connect, for the greeting and for each answer' },
  SVC_FILES_DIR: { path: 'filesDir', type: 'string', doc: 'Private file storage (encrypted)' },
  SVC_LOG_LEVEL: { path: 'logLevel', type: 'string', doc: 'pino level: fatal|error|warn|info|debug|trace|silent' },
  SVC_TIME_ZONE: {
    path: 'timeZone',
    type: 'string',
    doc: 'IANA time zone (e.g. America/New_York) of the times people read (CLI, mails), shown as ISO 8601 with the offset; default UTC',
  },
  SVC_LOG_FORMAT: {
    path: 'logFormat',
    type: 'string',
    doc: 'auto (default): readable lines when stdout is a terminal and SVC_ENV is development, JSON lines otherwise; json; pretty',
  },
  SVC_PG_DATA_DIR: { path: 'embeddedPg.dataDir', type: 'string', doc: 'Data directory of the embedded PostgreSQL' },
  SVC_PG_PORT: { path: 'embeddedPg.port', type: 'number', doc: 'Port of the embedded PostgreSQL (0 = a free port)' },
  SVC_SESSION_IDLE_MINUTES: { path: 'session.idleMinutes', type: 'number', doc: 'Session idle timeout' },
  SVC_SESSION_ABSOLUTE_HOURS: { path: 'session.absoluteHours', type: 'number', doc: 'Session absolute lifetime' },
  SVC_LOGIN_ADDRESS_FAILURES: {
    path: 'login.addressFailures',
    type: 'number',
    doc: 'Failed logins from one client address, over every account, before further logins from it get 429 with Retry-After (default 50)',
  },
  SVC_LOGIN_ADDRESS_WINDOW_SECONDS: {
    path: 'login.addressWindowSeconds',
    type: 'number',
    doc: 'The window of that count, from its first failure (default 900)',
  },
  SVC_PASSWORD_RESET_PER_ADDRESS: {
    path: 'passwordReset.perAddressPerHour',
    type: 'number',
    doc: 'Password reset mails sent to one e-mail address in a clock hour; further asks get the same answer and no mail (default 5)',
  },
  SVC_PASSWORD_RESET_PER_CLIENT: {
    path: 'passwordReset.perClientPerHour',
    type: 'number',
    doc: 'Password resets asked from one client address in a clock hour, over every e-mail address, before further ones get 429 (default 20)',
  },
  SVC_TRUSTED_PROXIES: {
    path: 'http.trustedProxies',
    type: 'list',
    doc: 'Comma-separated proxy addresses whose X-Forwarded-For names the client (login, auth.token and registration limits); default empty: the peer address',
  },
  SVC_BODY_LIMIT_BYTES: { path: 'http.bodyLimitBytes', type: 'number', doc: 'Largest JSON/form body' },
  SVC_UPLOAD_LIMIT_BYTES: { path: 'http.uploadLimitBytes', type: 'number', doc: 'Largest uploaded file' },
  SVC_UPLOAD_RATE_PER_HOUR: { path: 'uploads.perHour', type: 'number', doc: 'Uploads one account may make in an hour (429 beyond)' },
  SVC_UPLOAD_QUOTA_BYTES: { path: 'uploads.quotaBytes', type: 'number', doc: 'Bytes of files one account may store (413 beyond)' },
  SVC_MAX_PAGE_LENGTH: {
    path: 'http.maxPageLength',
    type: 'number',
    doc: 'Most rows in one list page (/api/resource, frappe.client.get_list); 0 and larger asks are clamped to it',
  },
  SVC_CORS_ORIGINS: { path: 'http.corsOrigins', type: 'list', doc: 'Comma-separated origins allowed for credentialed CORS' },
  SVC_DB_POOL_MAX: { path: 'db.poolMax', type: 'number', doc: 'Connections per process' },
  SVC_WORKER_POLL_MS: { path: 'worker.pollMs', type: 'number', doc: 'Outbox poll interval (LISTEN/NOTIFY wakes it sooner)' },
  SVC_WORKER_LEASE_SECONDS: { path: 'worker.leaseSeconds', type: 'number', doc: 'Lease on a claimed outbox row' },
  SVC_WORKER_CONCURRENCY: { path: 'worker.concurrency', type: 'number', doc: 'Outbox rows run at once per worker' },
  SVC_WORKER_PARTNER_SHARE: {
    path: 'worker.partnerShare',
    type: 'number',
    doc: "Most of a worker's slots one partner's rows may hold at once (0-1 of SVC_WORKER_CONCURRENCY, at least one; default 0.25): a hung partner leaves the rest to the others",
  },
  SVC_SHUTDOWN_TIMEOUT: {
    path: 'shutdownTimeoutSeconds',
    type: 'number',
    doc: 'Seconds a stop signal waits for running jobs and connections before it abandons them (to their leases) and exits (default 10)',
  },
  SVC_RETENTION_OUTBOX_DAYS: {
    path: 'retention.outboxDays',
    type: 'number',
    doc: 'Days a delivered outbox row (and its attempts) is kept (default 30); pending and failed rows stay',
  },
  SVC_RETENTION_PARTNER_CALLS_DAYS: { path: 'retention.partnerCallsDays', type: 'number', doc: 'Days a partner call log row is kept (default 90)' },
  SVC_RETENTION_PARTNER_EVENTS_DAYS: {
    path: 'retention.partnerEventsDays',
    type: 'number',
    doc: 'Days an applied partner event is kept (default 90); one not applied yet stays',
  },
  SVC_RETENTION_VENDOR_API_LOG_DAYS: { path: 'retention.vendorApiLogDays', type: 'number', doc: 'Days a vendor API log row is kept (default 90)' },
  SVC_RETENTION_PASSWORD_RESETS_DAYS: {
    path: 'retention.passwordResetsDays',
    type: 'number',
    doc: 'Days a password-reset link is kept after it expired (default 7)',
  },
  SVC_RETENTION_AUDIT_DAYS: {
    path: 'retention.auditDays',
    type: 'number',
    doc: 'Days the audit trail is kept (default and minimum 2192, six years; a lower value is refused)',
  },
  SVC_RETENTION_BATCH: { path: 'retention.batchSize', type: 'number', doc: 'Rows one DELETE of the retention job removes (default 1000)' },
  SVC_WORKER_NICE: {
    path: 'worker.nice',
    type: 'number',
    doc: 'CPU priority of `svc worker` (nice 0-19; default 0, the inherited one): raise it on a host where the API must answer before background work',
  },
  SVC_OPS_PORT: {
    path: 'ops.port',
    type: 'number',
    doc: 'Operations port of svc serve and svc start: /livez, /readyz, /metrics (default 9464; 0 = a free port)',
  },
  SVC_WORKER_OPS_PORT: {
    path: 'ops.workerPort',
    type: 'number',
    doc: 'Operations port of svc worker (default 9465, so a worker and serve share a host; the image sets both to 9464)',
  },
  SVC_OPS_HOST: { path: 'ops.host', type: 'string', doc: 'Bind address of the operations port (default 127.0.0.1; the image: 0.0.0.0)' },
  SVC_METRICS: { path: 'ops.metrics', type: 'boolean', doc: 'Prometheus metrics on the operations port (default true; false: no /metrics, nothing recorded)' },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    path: 'tracing.endpoint',
    type: 'string',
    doc: 'OpenTelemetry collector base URL (OTLP/HTTP, JSON; traces go to <url>/v1/traces): set, serve, worker and start export traces; unset (default), tracing is not loaded at all',
  },
  OTEL_SERVICE_NAME: { path: 'tracing.serviceName', type: 'string', doc: 'Service name of the traces (default svc)' },
  OTEL_TRACES_SAMPLER_ARG: {
    path: 'tracing.sampleRatio',
    type: 'number',
    doc: 'Share of new traces sampled, 0 to 1 (default 1); a request carrying a sampled traceparent is always followed (parent-based)',
  },
  SVC_WEBHOOK_TIMEOUT_MS: { path: 'webhook.timeoutMs', type: 'number', doc: 'Per-attempt timeout of vendor webhooks' },
  SVC_WEBHOOK_ALLOW_PRIVATE: { path: 'webhook.allowPrivateTargets', type: 'boolean', doc: 'Allow loopback/private webhook URLs (development and tests only)' },
  SVC_RETRY_TIME_SCALE: { path: 'webhook.retryTimeScale', type: 'number', doc: 'Scales retry delays (tests); 1 in production' },
  SVC_PARTNER_TIMEOUT_MS: { path: 'partners.timeoutMs', type: 'number', doc: 'Per-call timeout of partner connectors' },
  SVC_PARTNER_SIMULATORS_ONLY: { path: 'partners.simulatorsOnly', type: 'boolean', doc: 'Partner calls only to loopback simulators (always on in sandbox)' },
  SVC_PARTNER_MAX_ATTEMPTS: { path: 'partners.maxAttempts', type: 'number', doc: 'Attempts of one partner order before it is failed' },
  SVC_RXPARTNER_RATE_LIMIT: { path: 'partners.rxpartnerLimit', type: 'number', doc: 'rxpartner requests per sliding window (spec: 300)' },
  SVC_RXPARTNER_RATE_WINDOW_SECONDS: { path: 'partners.rxpartnerWindowSeconds', type: 'number', doc: 'rxpartner sliding window (spec: 300 s)' },
  SVC_SHIPPER_RATE_LIMIT: { path: 'partners.shipperLimit', type: 'number', doc: 'shipper requests per minute per key pair (spec: 40)' },
  SVC_SHIPPER_RATE_WINDOW_SECONDS: { path: 'partners.shipperWindowSeconds', type: 'number', doc: 'shipper rate window (spec: 60 s)' },
  SVC_SHIPPER_ORDER_RESERVE: {
    path: 'partners.shipperOrderReserve',
    type: 'number',
    doc: 'shipper requests of each window kept for sending orders; webhook resource reads use the rest (default 20 of 40)',
  },
  SVC_SHIPPER_PENDING_FETCHES: {
    path: 'partners.shipperPendingFetches',
    type: 'number',
    doc: 'shipper webhook resource reads waiting per account at most; more webhooks are dropped and counted (default 100)',
  },
  SVC_DEMO_PARTNERS: { path: 'demo.partners', type: 'boolean', doc: 'npm start also runs the five partner simulators and points svc at them (development)' },
  SVC_DEMO_PARTNERS_PORT: {
    path: 'demo.partnersPort',
    type: 'number',
    doc: 'First port of the demo partner simulators (the five take it and the next four; 0 = free ports)',
  },
  SVC_DEMO_ADVANCE_SECONDS: { path: 'demo.advanceSeconds', type: 'number', doc: 'The demo partner simulators move each order one status on this often' },
  SVC_NPPES_URL: { path: 'nppes.baseUrl', type: 'string', doc: "NPI registry (NPPES API) base URL; '' skips the registry check (development/test only)" },
  SVC_NPPES_TTL_SECONDS: { path: 'nppes.ttlSeconds', type: 'number', doc: 'How long an NPI registry answer is cached' },
  SVC_STORE_COST_RATE: { path: 'partners.storeRestorePerSecond', type: 'number', doc: 'storepartner GraphQL cost units restored per second (spec: 50)' },
  SVC_STORE_ORDERS_OVERLAP_SECONDS: {
    path: 'partners.storeOrdersOverlapSeconds',
    type: 'number',
    doc: 'store order import: seconds before the last run’s newest order update that the next run reads again',
  },
};

const schema = Joi.object<Config>({
  env: Joi.string().valid('development', 'test', 'production', 'sandbox').required(),
  port: Joi.number().integer().min(0).max(65535).required(),
  host: Joi.string().required(),
  baseUrl: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .required(),
  databaseUrl: Joi.string().uri({ scheme: ['postgres', 'postgresql'] }),
  logLevel: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').required(),
  timeZone: Joi.string()
    .custom((zone: string, helpers) =>
      isTimeZone(zone) ? zone : helpers.message({ custom: `"${zone}" is not an IANA time zone (e.g. UTC, America/New_York)` }),
    )
    .required(),
  logFormat: Joi.string().valid('auto', 'json', 'pretty').required(),
  secretKey: Joi.string().min(32).required(),
  secretKeyPrevious: Joi.string().allow('').min(32).invalid(Joi.ref('secretKey')).messages({ 'any.invalid': 'is the same key as SVC_SECRET_KEY' }).required(),
  encryptionKey: Joi.string()
    .base64()
    .required()
    .custom((v: string, h) => (Buffer.from(v, 'base64').length === 32 ? v : h.error('any.invalid')))
    .messages({ 'any.invalid': '"encryptionKey" must be base64 of exactly 32 bytes' }),
  encryptionKeyPrevious: Joi.string()
    .allow('')
    .base64()
    .required()
    .custom((v: string, h) => (Buffer.from(v, 'base64').length === 32 ? v : h.error('any.invalid')))
    .invalid(Joi.ref('encryptionKey'))
    .messages({ 'any.invalid': 'must be base64 of exactly 32 bytes, and not the same key as SVC_ENCRYPTION_KEY' }),
  smtpUrl: Joi.string().uri({ scheme: ['smtp', 'smtps'] }),
  mailFrom: Joi.string().required(),
  mailDir: Joi.string().required(),
  mailTimeoutMs: Joi.number().integer().min(100).max(600_000).required(),
  filesDir: Joi.string().required(),
  embeddedPg: Joi.object({ dataDir: Joi.string().required(), port: Joi.number().integer().min(0).max(65535).required() }).required(),
  session: Joi.object({ idleMinutes: Joi.number().positive().required(), absoluteHours: Joi.number().positive().required() }).required(),
  login: Joi.object({ addressFailures: Joi.number().integer().min(1).required(), addressWindowSeconds: Joi.number().integer().min(1).required() }).required(),
  passwordReset: Joi.object({
    perAddressPerHour: Joi.number().integer().min(1).required(),
    perClientPerHour: Joi.number().integer().min(1).required(),
  }).required(),
  http: Joi.object({
    bodyLimitBytes: Joi.number().integer().min(1024).required(),
    uploadLimitBytes: Joi.number().integer().min(1024).required(),
    corsOrigins: Joi.array().items(Joi.string().uri()).required(),
    maxPageLength: Joi.number().integer().min(1).max(100_000).required(),
    trustedProxies: Joi.array()
      .items(Joi.string().ip({ cidr: 'forbidden' }))
      .required(),
  }).required(),
  uploads: Joi.object({
    perHour: Joi.number().integer().min(1).required(),
    quotaBytes: Joi.number().integer().min(1024).required(),
  }).required(),
  db: Joi.object({
    poolMax: Joi.number().integer().min(1).required(),
    statementTimeoutMs: Joi.number().integer().min(0).required(),
    lockTimeoutMs: Joi.number().integer().min(0).required(),
  }).required(),
  worker: Joi.object({
    pollMs: Joi.number().integer().min(10).required(),
    leaseSeconds: Joi.number().min(1).required(),
    concurrency: Joi.number().integer().min(1).required(),
    batchSize: Joi.number().integer().min(1).required(),
    nice: Joi.number().integer().min(0).max(19).required(),
    partnerShare: Joi.number().greater(0).max(1).required(),
  }).required(),
  shutdownTimeoutSeconds: Joi.number().positive().required(),
  retention: Joi.object({
    outboxDays: Joi.number().integer().min(1).required(),
    partnerCallsDays: Joi.number().integer().min(1).required(),
    partnerEventsDays: Joi.number().integer().min(1).required(),
    vendorApiLogDays: Joi.number().integer().min(1).required(),
    passwordResetsDays: Joi.number().integer().min(1).required(),
    auditDays: Joi.number()
      .integer()
      .min(AUDIT_MIN_DAYS)
      .required()
      .messages({ 'number.min': `the audit trail is kept at least six years (${AUDIT_MIN_DAYS} days)` }),
    batchSize: Joi.number().integer().min(1).max(10000).required(),
  }).required(),
  ops: Joi.object({
    host: Joi.string().required(),
    port: Joi.number().integer().min(0).max(65535).required(),
    workerPort: Joi.number().integer().min(0).max(65535).required(),
    metrics: Joi.boolean().required(),
  }).required(),
  tracing: Joi.object({
    endpoint: Joi.string()
      .allow('')
      .uri({ scheme: ['http', 'https'] })
      .required(),
    serviceName: Joi.string().required(),
    sampleRatio: Joi.number().min(0).max(1).required(),
  }).required(),
  webhook: Joi.object({
    timeoutMs: Joi.number().integer().min(100).required(),
    allowPrivateTargets: Joi.boolean().required(),
    retryTimeScale: Joi.number().positive().required(),
  }).required(),
  partners: Joi.object({
    timeoutMs: Joi.number().integer().min(100).required(),
    simulatorsOnly: Joi.boolean().required(),
    maxAttempts: Joi.number().integer().min(1).max(100).required(),
    budgetWaitMs: Joi.number().integer().min(0).required(),
    rxpartnerLimit: Joi.number().integer().min(1).required(),
    rxpartnerWindowSeconds: Joi.number().min(1).required(),
    shipperLimit: Joi.number().integer().min(1).required(),
    shipperWindowSeconds: Joi.number().min(1).required(),
    shipperOrderReserve: Joi.number().integer().min(0).required(),
    shipperPendingFetches: Joi.number().integer().min(1).required(),
    storeCapacity: Joi.number().positive().required(),
    storeRestorePerSecond: Joi.number().positive().required(),
    storeOrdersOverlapSeconds: Joi.number().integer().min(0).required(),
  }).required(),
  demo: Joi.object({
    partners: Joi.boolean().required(),
    partnersPort: Joi.number().integer().min(0).max(65531).required(),
    advanceSeconds: Joi.number().positive().required(),
  }).required(),
  sales: Joi.object({
    defaultPlan: Joi.string().required(),
    plans: Joi.object()
      .pattern(
        Joi.string(),
        Joi.object({
          baseRatePct: Joi.number().min(0).max(100).required(),
          tiers: Joi.array()
            .items(Joi.object({ name: Joi.string().required(), fromMtd: Joi.number().min(0).required(), ratePct: Joi.number().min(0).max(100).required() }))
            .min(1)
            .required(),
          maxSubrepPct: Joi.number().min(0).max(100).required(),
          managerOverridePct: Joi.number().min(0).max(100).required(),
        }),
      )
      .min(1)
      .required(),
    levels: Joi.array()
      .items(Joi.object({ level: Joi.number().integer().min(1).required(), name: Joi.string().required(), fromSales: Joi.number().min(0).required() }))
      .min(1)
      .required(),
    invitationHours: Joi.number().positive().required(),
  })
    .custom((v: SalesSettings, h) => (v.plans[v.defaultPlan] ? v : h.error('any.invalid')))
    .messages({ 'any.invalid': '"sales.defaultPlan" must name one of sales.plans' })
    .required(),
  nppes: Joi.object({
    baseUrl: Joi.string()
      .allow('')
      .uri({ scheme: ['http', 'https'] })
      .required(),
    timeoutMs: Joi.number().integer().min(100).required(),
    ttlSeconds: Joi.number().integer().min(0).required(),
    notFoundTtlSeconds: Joi.number().integer().min(0).required(),
  }).required(),
});

export class ConfigError extends Error {}

const DEFAULT_SECRETS = new Set<string>();

function readJson(file: string): Record<string, unknown> {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
}

function merge(target: Record<string, unknown>, source: Record<string, unknown>): Record<string, unknown> {
  for (const [k, v] of Object.entries(source)) {
    const cur = target[k];
    if (v && typeof v === 'object' && !Array.isArray(v) && cur && typeof cur === 'object' && !Array.isArray(cur))
      merge(cur as Record<string, unknown>, v as Record<string, unknown>);
    else target[k] = v;
  }
  return target;
}

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur = obj;
  for (const p of parts.slice(0, -1)) cur = (cur[p] ??= {}) as Record<string, unknown>;
  cur[parts[parts.length - 1]] = value;
}

function parseEnvValue(name: string, raw: string, type: string): unknown {
  if (type === 'number') {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n)) throw new ConfigError(`Invalid setting ${name}: "${raw}" is not a number`);
    return n;
  }
  if (type === 'boolean') {
    if (!['1', '0', 'true', 'false', 'yes', 'no'].includes(raw.toLowerCase())) throw new ConfigError(`Invalid setting ${name}: "${raw}" is not a boolean`);
    return ['1', 'true', 'yes'].includes(raw.toLowerCase());
  }
  if (type === 'list')
    return raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  return raw;
}

/** Builds the validated, frozen Config from config/*.json and the environment; throws ConfigError naming the bad setting. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const name = (env.SVC_ENV ?? env.NODE_ENV ?? 'development') as Environment;
  if (!['development', 'test', 'production', 'sandbox'].includes(name))
    throw new ConfigError(`Invalid setting SVC_ENV: "${name}" must be development, test, production or sandbox`);
  const dir = resolve(projectRoot, 'config');
  const defaults = readJson(resolve(dir, 'default.json'));
  for (const key of ['secretKey', 'encryptionKey']) DEFAULT_SECRETS.add(String(defaults[key]));
  const raw = merge(merge(defaults, readJson(resolve(dir, `${name}.json`))), { env: name });
  for (const [variable, spec] of Object.entries(ENV_VARS)) {
    const value = env[variable];
    if (value !== undefined && value !== '') setPath(raw, spec.path, parseEnvValue(variable, value, spec.type));
  }
  merge(raw, overrides);
  // host and port are checked by the schema just below: here they are whatever the files and environment hold
  if (raw.baseUrl === undefined || (env.SVC_BASE_URL === undefined && !overrides.baseUrl))
    raw.baseUrl = `http://${raw.host === '0.0.0.0' ? '127.0.0.1' : String(raw.host)}:${String(raw.port)}`;
  const validated = schema.validate(raw, { abortEarly: true, convert: true });
  if (validated.error) {
    const { error } = validated;
    const path = error.details[0].path.join('.');
    const variable = Object.entries(ENV_VARS).find(([, s]) => s.path === path || path.startsWith(`${s.path}.`))?.[0]; // list items too
    throw new ConfigError(`Invalid setting ${variable ?? path}: ${error.details[0].message}`);
  }
  const value = validated.value;
  if (value.env === 'production' || value.env === 'sandbox') {
    // examples, placeholders and predictable values too (secret-strength.ts has the rule); never the value itself
    const secretProblem = secretKeyProblem(value.secretKey, DEFAULT_SECRETS);
    if (secretProblem) throw new ConfigError(`Invalid setting SVC_SECRET_KEY: ${secretProblem}`);
    const keyProblem = encryptionKeyProblem(value.encryptionKey, DEFAULT_SECRETS);
    if (keyProblem) throw new ConfigError(`Invalid setting SVC_ENCRYPTION_KEY: ${keyProblem}`);
    if (value.webhook.allowPrivateTargets)
      throw new ConfigError('Invalid setting SVC_WEBHOOK_ALLOW_PRIVATE: private webhook targets are refused in production');
  }
  // a prescription is never sent unchecked in production: the NPI registry must be configured there
  if (value.env === 'production' && !value.nppes.baseUrl)
    throw new ConfigError('Invalid setting SVC_NPPES_URL: the NPI registry check is required in production');
  // spec: sandbox orders are never fulfilled or charged, so a sandbox talks only to simulators
  if (value.env === 'sandbox' && !value.partners.simulatorsOnly)
    throw new ConfigError('Invalid setting SVC_PARTNER_SIMULATORS_ONLY: a sandbox talks only to partner simulators');
  return deepFreeze(value);
}

function deepFreeze<T>(obj: T): T {
  for (const v of Object.values(obj as object)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(obj);
}

/** Server time zone: the spec's sync.orders and created_at are US Eastern. */
export const SERVER_TIME_ZONE = 'America/New_York';
