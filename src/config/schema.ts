import Joi from 'joi';
import { AUDIT_MIN_DAYS, type Config, type SalesSettings } from './settings.js';

/** An IANA time zone name this Node knows (Intl throws a RangeError on any other). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone.trim() !== '';
  } catch {
    return false;
  }
}

/** The rules every loaded Config must meet (Joi, converting strings the environment gave). */
export const configSchema = Joi.object<Config>({
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
  apiKeyCacheMs: Joi.number().integer().min(0).max(60_000).required(),
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
    context: Joi.string().valid('', 'promise-hooks', 'async-local-storage').required(),
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
  recalls: Joi.object({ remindDays: Joi.number().integer().min(0).max(365).required() }).required(),
});
