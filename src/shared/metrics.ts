/**
 * Prometheus metrics of this process (issue 25), served on the operations port's /metrics. Every
 * label is bounded: route templates, statuses, kinds, partner keys, job names; never an id, a user
 * or a URL. Counters live in process memory on purpose: Prometheus sums them across processes.
 * Figures that are facts of the database (outbox rows, partner orders) are read at scrape time with
 * one query each, cached briefly so frequent or parallel scrapes cannot load the database.
 */
import client from 'prom-client';
import { registerHttpMetrics, requestFinished, requestStarted } from './metrics-http.js';
import { registerScrapedGauges } from './metrics-scraped.js';

export const registry = new client.Registry();

let enabled = true;
let defaultsCollected = false;

/** Turns collection on or off for this process (SVC_METRICS); off, every recording below is a no-op. */
export function configureMetrics(on: boolean): void {
  enabled = on;
  if (on && !defaultsCollected) {
    client.collectDefaultMetrics({ register: registry });
    defaultsCollected = true;
  }
}

export function metricsEnabled(): boolean {
  return enabled;
}

/** A request arrived (the in-flight gauge). */
export function httpStarted(): void {
  if (enabled) requestStarted();
}

/**
 * A request was answered: `method` as hapi gives it (lower case), `route` the route's template
 * (hapi's route.path), never the URL; `ms` how long it took (whole milliseconds); `counted` says
 * httpStarted saw it (a request injected in a test bypasses the listener).
 */
export function httpFinished(method: string, route: string, status: number, ms: number, counted = true): void {
  if (enabled) requestFinished(method, route, status, ms, counted);
}

const jobRuns = new client.Counter({
  name: 'svc_job_runs_total',
  help: 'Cron job runs, by job and result (ok, failed, skipped: another process held it)',
  labelNames: ['job', 'result'],
  registers: [registry],
});
const jobDuration = new client.Histogram({
  name: 'svc_job_duration_seconds',
  help: 'Cron job run duration, by job',
  labelNames: ['job'],
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300],
  registers: [registry],
});

/** A cron job's run ended. */
export function jobFinished(job: string, result: 'ok' | 'failed' | 'skipped', seconds: number): void {
  if (!enabled) return;
  jobRuns.inc({ job, result });
  if (result !== 'skipped') jobDuration.observe({ job }, seconds);
}

const webhookDeliveries = new client.Counter({
  name: 'svc_webhook_deliveries_total',
  help: 'Vendor webhook delivery attempts, by result (delivered; retry: failed, another attempt follows; failed: the last attempt failed; skipped: no URL or secret)',
  labelNames: ['result'],
  registers: [registry],
});

/** A vendor webhook attempt ended. */
export function webhookDelivered(result: 'delivered' | 'retry' | 'failed' | 'skipped'): void {
  if (enabled) webhookDeliveries.inc({ result });
}

const partnerCalls = new client.Counter({
  name: 'svc_partner_calls_total',
  help: 'Calls to partners, by partner, endpoint template and status (the HTTP status code, or error, timeout)',
  labelNames: ['partner', 'endpoint', 'status'],
  registers: [registry],
});
const partnerCallDuration = new client.Histogram({
  name: 'svc_partner_call_duration_seconds',
  help: 'Duration of calls to partners, by partner and endpoint template',
  labelNames: ['partner', 'endpoint'],
  buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

/** A call to a partner ended: `endpoint` is its template (e.g. "GET /orders/{orderId}"), `status` a code, error or timeout. */
export function partnerCallFinished(partner: string, endpoint: string, status: string, seconds: number): void {
  if (!enabled) return;
  partnerCalls.inc({ partner, endpoint, status });
  partnerCallDuration.observe({ partner, endpoint }, seconds);
}

const budgetWaits = new client.Counter({
  name: 'svc_rate_budget_waits_total',
  help: "Takes from a partner's rate budget that found it spent and waited (or were deferred), by partner",
  labelNames: ['partner'],
  registers: [registry],
});
const budgetWaitSeconds = new client.Histogram({
  name: 'svc_rate_budget_wait_seconds',
  help: "Time a take waited for a partner's rate budget, by partner",
  labelNames: ['partner'],
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

/** A take from a partner's budget was refused at first and waited `seconds` before its final answer. */
export function budgetWaited(partner: string, seconds: number): void {
  if (!enabled) return;
  budgetWaits.inc({ partner });
  budgetWaitSeconds.observe({ partner }, seconds);
}

/** Why a login or a vendor's token request failed (a bounded set: the label's values). */
export type LoginFailureReason = 'bad_credentials' | 'incomplete' | 'disabled' | 'locked' | 'address_limited' | 'client_bad_secret' | 'client_locked';

const loginFailures = new client.Counter({
  name: 'svc_login_failures_total',
  help: 'Failed logins (user sessions) and vendor token requests, by reason',
  labelNames: ['reason'],
  registers: [registry],
});
const lockouts = new client.Counter({
  name: 'svc_lockouts_total',
  help: 'Accounts, vendor clients or client addresses locked out (counted when a failure reaches the limit)',
  registers: [registry],
});

export function loginFailed(reason: LoginFailureReason): void {
  if (enabled) loginFailures.inc({ reason });
}

export function lockedOut(): void {
  if (enabled) lockouts.inc();
}

registerHttpMetrics(registry);
registerScrapedGauges(registry);

/** The text exposition of every metric (Prometheus format) and its content type. */
export async function metricsText(): Promise<{ body: string; contentType: string }> {
  return { body: await registry.metrics(), contentType: registry.contentType };
}
