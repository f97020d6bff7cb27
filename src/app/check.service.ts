/**
 * `svc check`: is this installation healthy? Each finding says what was checked, what was found and,
 * when something is wrong, how to fix it. `fail` findings make the command exit 1; `warn` ones do not.
 */
import type { Config } from '../config/index.js';
import { systemActor } from '../auth/actor.js';
import { listPartnerCalls } from '../fulfilment/call-log.service.js';
import { loadPartnerCredentials } from '../fulfilment/credentials/credentials.service.js';
import { PARTNER_KEYS } from '../partners/index.js';
import { partnerReadiness } from '../fulfilment/readiness.js';
import { partnerWebhookDrops, type PartnerWebhookDropRow } from '../fulfilment/partner-events.service.js';
import { UNUSABLE_PREFIX } from '../fulfilment/webhook-unusable.js';
import { migrationStatus } from '../db/migrator.js';
import { largestTables } from '../db/retention.js';
import { db, selectOne } from '../db/sequelize.js';
import { verifyMailTransport } from '../mail/mail.service.js';
import { workerHeartbeats } from '../shared/heartbeat.js';
import { outboxBacklog } from '../shared/outbox-admin.js';
import { retentionLag } from '../jobs/retention.js';
import { runtime } from '../shared/runtime.js';
import { countStaleValues } from './keys.service.js';

export type Level = 'ok' | 'warn' | 'fail';

export interface Finding {
  check: string;
  level: Level;
  detail: string;
  /** what to do about it (warn and fail findings) */
  fix?: string;
}

/** A worker is alive when its heartbeat is at most this old. */
export const HEARTBEAT_MAX_AGE_SECONDS = 60;
/** A due outbox row waiting longer than this means the workers are not keeping up. */
export const OUTBOX_MAX_WAIT_SECONDS = 600;

/** Outcomes of a call that did not reach a partner able to answer. */
const UNREACHED = new Set(['timeout', 'connection_error', 'server_error']);
/** This many failed calls in a row, with none answered since, make a partner unreachable. */
export const UNREACHABLE_AFTER_CALLS = 3;

/** Retention more than this behind (a day: the hourly job missed many runs) is a warning. */
export const RETENTION_MAX_BEHIND_SECONDS = 86_400;

const dur = (s: number) => (s < 120 ? `${s}s` : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`);
const ago = (s: number) => `${dur(s)} ago`;

/**
 * A logged call as `GET /orders/{id} → ok (200)`: outbound endpoints are logged with their method
 * already ("GET /orders"), inbound ones as a path, so the method is added only when it is missing.
 */
export function describeCall(c: { method: string; endpoint: string; outcome: string; http_status: number | null }): string {
  const endpoint = c.endpoint.startsWith(`${c.method} `) ? c.endpoint : `${c.method} ${c.endpoint}`;
  return `${endpoint} → ${c.outcome}${c.http_status ? ` (${c.http_status})` : ''}`;
}

/** Every check after the configuration loaded and the database opened (the caller reports those two). */
/** A partner whose latest outbound calls all went unanswered (timeouts, refused connections, 5xx): undefined when it answers. */
async function unreachable(partner: string): Promise<Finding | undefined> {
  const recent = await listPartnerCalls(systemActor('cli:check'), { partner, direction: 'outbound', limit: 20 });
  const answered = recent.findIndex((c) => !UNREACHED.has(c.outcome));
  const failing = answered === -1 ? recent : recent.slice(0, answered);
  if (failing.length < UNREACHABLE_AFTER_CALLS) return undefined;
  const since = Math.round((Date.now() - new Date(failing[failing.length - 1].created_at).getTime()) / 1000);
  const last = failing[0];
  return {
    check: `partner ${partner} reachable`,
    level: 'fail',
    detail: `not reachable: the last ${failing.length}${answered === -1 ? '+' : ''} calls went unanswered, since ${ago(since)} (last: ${describeCall(last)})`,
    fix: `its orders and status polls are retried meanwhile; check the partner's status and ${partner}'s URL (svc partner calls --partner ${partner})`,
  };
}

const size = (b: number) => (b < 1 << 20 ? `${Math.round(b / 1024)} kB` : b < 1 << 30 ? `${Math.round(b / (1 << 20))} MB` : `${(b / (1 << 30)).toFixed(1)} GB`);

/** Issue 25 §7: the largest tables, and per growing table how far its retention is behind. */
async function storageFindings(config: Config): Promise<Finding[]> {
  const largest = await largestTables(5);
  const findings: Finding[] = [{ check: 'largest tables', level: 'ok', detail: largest.map((t) => `${t.table} ${size(t.bytes)}`).join(', ') }];
  for (const r of await retentionLag(config.retention))
    findings.push(
      r.behindSeconds > RETENTION_MAX_BEHIND_SECONDS
        ? {
            check: `retention ${r.table}`,
            level: 'warn',
            detail: `${dur(r.behindSeconds)} behind: its oldest row is past the ${r.days} days kept by that much`,
            fix: 'check that workers run (the hourly retention job runs in svc worker); svc check: worker',
          }
        : { check: `retention ${r.table}`, level: 'ok', detail: `${r.days} days, ${r.behindSeconds ? `${dur(r.behindSeconds)} behind` : 'on time'}` },
    );
  return findings;
}

/** During a rotation of SVC_ENCRYPTION_KEY (a previous key configured): the values still sealed with another key. */
async function encryptionKeyFinding(config: Config): Promise<Finding> {
  const keyId = runtime().cipher.keyId;
  if (!config.encryptionKeyPrevious) return { check: 'encryption key', level: 'ok', detail: `key id ${keyId}; no previous key configured` };
  const stale = (await countStaleValues()).filter((c) => c.values > 0);
  if (stale.length === 0)
    return {
      check: 'encryption key',
      level: 'ok',
      detail: `every value is sealed with the current key (key id ${keyId}); SVC_ENCRYPTION_KEY_PREVIOUS can be removed`,
    };
  const total = stale.reduce((n, c) => n + c.values, 0);
  return {
    check: 'encryption key',
    level: 'warn',
    detail: `${total} values still sealed with the previous key (${stale.map((c) => `${c.store} ${c.values}`).join(', ')})`,
    fix: 'run svc keys rotate; keep SVC_ENCRYPTION_KEY_PREVIOUS until it reports them all re-sealed',
  };
}

export async function runChecks(config: Config): Promise<Finding[]> {
  const findings: Finding[] = [];
  await selectOne('SELECT 1 AS ok'); // throws when unreachable: the command reports it as the database finding
  findings.push({ check: 'database', level: 'ok', detail: 'reachable' });

  const { pending } = await migrationStatus(db());
  findings.push(
    pending.length
      ? { check: 'migrations', level: 'fail', detail: `${pending.length} not applied: ${pending.join(', ')}`, fix: 'run svc db migrate up' }
      : { check: 'migrations', level: 'ok', detail: 'all applied' },
  );
  if (pending.length) return findings; // the tables the other checks read may not exist yet

  findings.push(await workerFinding());
  findings.push(...(await outboxFindings()));
  findings.push(...(await partnerFindings()));
  // webhooks dropped at the cap of resource reads waiting (a flood, or a partner far behind), and
  // verified deliveries acknowledged with nothing usable in them, per topic, with the last one's shape
  for (const d of await partnerWebhookDrops()) findings.push(dropFinding(d));

  findings.push(...(await storageFindings(config)));
  findings.push(await encryptionKeyFinding(config));
  findings.push(await mailFinding(config));
  return findings;
}

/** A worker whose heartbeat is recent enough. */
async function workerFinding(): Promise<Finding> {
  const beats = await workerHeartbeats();
  const alive = beats.filter((b) => b.age_seconds <= HEARTBEAT_MAX_AGE_SECONDS);
  return alive.length
    ? { check: 'worker', level: 'ok', detail: `${alive.length} alive (latest ${alive[0].worker_id}, ${ago(alive[0].age_seconds)})` }
    : {
        check: 'worker',
        level: 'fail',
        detail: beats.length
          ? `no heartbeat within ${HEARTBEAT_MAX_AGE_SECONDS}s (last: ${beats[0].worker_id}, ${ago(beats[0].age_seconds)})`
          : 'no worker has ever run',
        fix: 'start a worker: svc worker (webhooks, partner calls and mail wait in the outbox until one runs)',
      };
}

/** How long the oldest due outbox row has waited, and the rows failed for good. */
async function outboxFindings(): Promise<Finding[]> {
  const backlog = await outboxBacklog();
  const waiting = backlog.oldest_due_seconds ?? 0;
  const findings: Finding[] = [
    waiting > OUTBOX_MAX_WAIT_SECONDS
      ? {
          check: 'outbox',
          level: 'fail',
          detail: `${backlog.pending} pending; the oldest due row has waited ${dur(waiting)}`,
          fix: 'check that workers run (svc check: worker) and svc outbox status for kinds without a handler; add workers if they cannot keep up',
        }
      : {
          check: 'outbox',
          level: 'ok',
          detail: `${backlog.pending} pending${backlog.oldest_due_seconds !== null ? `, the oldest due has waited ${dur(waiting)}` : ''}`,
        },
  ];
  if (backlog.failed > 0)
    findings.push({
      check: 'outbox failures',
      level: 'warn',
      detail: `${backlog.failed} row(s) failed for good`,
      fix: 'svc webhook list --status failed, then svc webhook redeliver <id> once the receiver is fixed; svc partner orders for partner calls',
    });
  return findings;
}

/** Each partner: its credentials, whether they work, whether it answers, and its last call. */
async function partnerFindings(): Promise<Finding[]> {
  const findings: Finding[] = [];
  const actor = systemActor('cli:check');
  for (const partner of PARTNER_KEYS) {
    const stored = Object.values(await loadPartnerCredentials(partner)).some((v) => v);
    const [last] = await listPartnerCalls(actor, { partner, limit: 1 });
    const lastCall = last ? `last call ${ago(Math.round((Date.now() - new Date(last.created_at).getTime()) / 1000))}: ${describeCall(last)}` : 'never called';
    if (!stored) {
      findings.push({
        check: `partner ${partner}`,
        level: 'warn',
        detail: `no credentials (${lastCall})`,
        fix: `svc partner-credentials set ${partner} when products are mapped to it (their lines wait otherwise)`,
      });
      continue;
    }
    const ready = await partnerReadiness(partner);
    const down = await unreachable(partner);
    if (down) findings.push(down);
    findings.push(
      ready.ready
        ? { check: `partner ${partner}`, level: 'ok', detail: `credentials present; ${lastCall}` }
        : {
            check: `partner ${partner}`,
            level: 'fail',
            detail: `${ready.problem}; ${lastCall}`,
            fix: `svc partner-credentials set ${partner}, then svc partner-credentials test ${partner}`,
          },
    );
  }
  return findings;
}

/** Whether the mail transport answers. */
async function mailFinding(config: Config): Promise<Finding> {
  const mail = await verifyMailTransport(config);
  return mail.ok
    ? { check: 'mail', level: 'ok', detail: mail.detail }
    : { check: 'mail', level: 'fail', detail: mail.detail, fix: 'check SMTP_URL (host, port, user, password) or SVC_MAIL_DIR' };
}

/** One row of partner_webhook_drops as a finding: a warning when the last drop is under a day old. */
function dropFinding(d: PartnerWebhookDropRow): Finding {
  const since = ago(Math.round((Date.now() - d.lastAt.getTime()) / 1000));
  const level = Date.now() - d.lastAt.getTime() < 86_400_000 ? 'warn' : 'ok';
  if (d.reason.startsWith(UNUSABLE_PREFIX))
    return {
      check: `partner ${d.partner} webhooks ${d.reason.slice(UNUSABLE_PREFIX.length)}`,
      level,
      detail: `${d.count} verified deliveries acknowledged but unusable, the last ${since}: ${d.lastProblem ?? '-'}; its shape ${d.lastExample ?? '-'}`,
      fix: `the partner sends a shape svc does not read (docs/decisions.md "Partner deliveries as they are sent"); see svc partner calls --partner ${d.partner}`,
    };
  return {
    check: `partner ${d.partner} webhooks`,
    level,
    detail: `${d.count} dropped unread since the service started counting (${d.reason}), the last ${since}`,
    fix: 'a flood of webhooks, or resource reads far behind: see svc partner calls --partner shipper; SVC_SHIPPER_PENDING_FETCHES sets the cap',
  };
}
