/**
 * Issue 25 §7: the retention job (a singleton under its advisory lock) deletes what is past its
 * retention and nothing still needed. Rows are aged by writing their age columns in the past (an
 * UPDATE, or an INSERT with an old created_at for the append-only audit trail): a state the services
 * cannot produce except by waiting for months.
 */
import test from 'ava';
import type pg from 'pg';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { runJobOnce } from '../../src/jobs/index.js';
import { retentionJob } from '../../src/jobs/retention.job.js';
import { enforceRetention, retentionLag } from '../../src/jobs/retention.js';
import { runChecks } from '../../src/app/check.service.js';

let app: TestApp;
let db: pg.Client;

test.before(async () => {
  app = await startTestApp({ env: { SVC_RETENTION_BATCH: '2' } });
  db = await pgClient(app.dbUrl);
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

const one = async (sql: string, args: unknown[] = []) => (await db.query<{ id: string }>(sql, args)).rows[0].id;
const exists = async (table: string, id: string, key = 'id') => (await db.query(`SELECT 1 FROM ${table} WHERE ${key} = $1`, [id])).rowCount === 1;

// rows written and aged in their tables directly (these helpers): retention, what goes after how long, is the subject
/** An outbox row in `status`, completed (or last touched) `days` ago, with one attempt. */
async function outboxRow(status: string, days: number): Promise<{ id: string; attempt: string }> {
  const id = await one(
    `INSERT INTO outbox (kind, payload, status, completed_at) VALUES ('rt.test', '{}', $1, CASE WHEN $1 = 'done' THEN now() END) RETURNING id`,
    [status],
  );
  const attempt = await one(`INSERT INTO outbox_attempts (outbox_id, attempt, started_at, ok) VALUES ($1, 1, now(), $2) RETURNING id`, [id, status === 'done']);
  await db.query(`UPDATE outbox SET created_at = now() - make_interval(days => $2), completed_at = completed_at - make_interval(days => $2) WHERE id = $1`, [
    id,
    days,
  ]);
  return { id, attempt };
}

async function partnerCall(days: number): Promise<string> {
  const id = await one(`INSERT INTO partner_calls (partner, direction, method, endpoint, outcome) VALUES ('rt', 'outbound', 'GET', '/x', 'ok') RETURNING id`);
  await db.query(`UPDATE partner_calls SET created_at = now() - make_interval(days => $2) WHERE id = $1`, [id, days]);
  return id;
}

async function partnerEvent(days: number, applied: boolean): Promise<string> {
  const id = await one(
    `INSERT INTO partner_events (partner, event_key, reference, event, applied_at) VALUES ('rt', gen_random_uuid()::text, 'r', '{}', CASE WHEN $1 THEN now() END) RETURNING id`,
    [applied],
  );
  await db.query(
    `UPDATE partner_events SET received_at = now() - make_interval(days => $2), applied_at = applied_at - make_interval(days => $2) WHERE id = $1`,
    [id, days],
  );
  return id;
}

async function apiLog(days: number): Promise<string> {
  const id = await one(`INSERT INTO vendor_api_logs (direction, function, status) VALUES ('inbound', 'rt', 'ok') RETURNING id`);
  await db.query(`UPDATE vendor_api_logs SET created_at = now() - make_interval(days => $2) WHERE id = $1`, [id, days]);
  return id;
}

/** A password-reset link that expired `days` ago, of the demo admin. */
const resetLink = (days: number) =>
  one(
    `INSERT INTO password_resets (token_hash, user_id, email, expires_at)
      SELECT md5(random()::text), id, email, now() - make_interval(days => $1) FROM users ORDER BY email LIMIT 1 RETURNING token_hash AS id`,
    [days],
  );

const auditRow = (days: number) =>
  one(
    `INSERT INTO audit_events (actor_type, actor_id, action, object_type, object_name, created_at)
      VALUES ('system', 'rt', 'read', 'Sales Order', 'SO-RT', now() - make_interval(days => $1)) RETURNING id`,
    [days],
  );

test.serial('old rows go; young ones, and old ones still needed, stay', async (t) => {
  const doneOld = await outboxRow('done', 31);
  const doneYoung = await outboxRow('done', 29);
  const pendingOld = await outboxRow('pending', 400);
  const failedOld = await outboxRow('failed', 400);
  const callOld = await partnerCall(91);
  const callYoung = await partnerCall(89);
  const eventOld = await partnerEvent(91, true);
  const eventUnapplied = await partnerEvent(400, false);
  const eventYoung = await partnerEvent(89, true);
  const logOld = await apiLog(91);
  const logYoung = await apiLog(89);
  const resetOld = await resetLink(8);
  const resetYoung = await resetLink(6);
  const auditOld = await auditRow(6 * 366 + 30);
  const auditYoung = await auditRow(6 * 365 - 30);

  t.true(await runJobOnce(retentionJob));

  t.false(await exists('outbox', doneOld.id));
  t.false(await exists('outbox_attempts', doneOld.attempt), 'the attempts go with their row');
  for (const r of [doneYoung, pendingOld, failedOld]) {
    t.true(await exists('outbox', r.id));
    t.true(await exists('outbox_attempts', r.attempt));
  }
  t.false(await exists('partner_calls', callOld));
  t.true(await exists('partner_calls', callYoung));
  t.false(await exists('partner_events', eventOld));
  t.true(await exists('partner_events', eventUnapplied), 'an event not applied yet stays');
  t.true(await exists('partner_events', eventYoung));
  t.false(await exists('vendor_api_logs', logOld));
  t.true(await exists('vendor_api_logs', logYoung));
  t.false(await exists('password_resets', resetOld, 'token_hash'), 'a reset link goes a week after it expired');
  t.true(await exists('password_resets', resetYoung, 'token_hash'));
  t.false(await exists('audit_events', auditOld));
  t.true(await exists('audit_events', auditYoung), 'the audit trail is kept six years');
  const lag = await retentionLag(app.config.retention);
  t.true(
    lag.every((l) => l.behindSeconds === 0),
    JSON.stringify(lag),
  );
});

test.serial('batches of SVC_RETENTION_BATCH rows until none is left past its retention', async (t) => {
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push(await partnerCall(100));
  const deleted = await enforceRetention(app.config.retention);
  t.is(deleted.partner_calls, 5);
  for (const id of ids) t.false(await exists('partner_calls', id));
});

test.serial('another process holding the job lock: this run does nothing, and the holder deletes each row once', async (t) => {
  const id = await partnerCall(120);
  const other = await pgClient(app.dbUrl);
  try {
    await other.query('BEGIN');
    await other.query(`SELECT pg_advisory_xact_lock(hashtext('svc:job:retention'))`);
    t.false(await runJobOnce(retentionJob), 'skipped: the other process runs it');
    t.true(await exists('partner_calls', id));
    await other.query('COMMIT');
  } finally {
    await other.end();
  }
  const [a, b] = await Promise.all([enforceRetention(app.config.retention), enforceRetention(app.config.retention)]);
  t.is(a.partner_calls + b.partner_calls, 1, 'two runs at once never count a row twice');
  t.false(await exists('partner_calls', id));
});

test.serial('svc check shows the largest tables and how far each retention is behind', async (t) => {
  const id = await apiLog(95);
  const findings = await runChecks(app.config);
  const largest = findings.find((f) => f.check === 'largest tables');
  t.truthy(largest?.detail.match(/\w+ \d+ (kB|MB|GB)/), largest?.detail);
  const behind = findings.find((f) => f.check === 'retention vendor_api_logs');
  t.is(behind?.level, 'warn');
  t.regex(behind?.detail ?? '', /^\d+ h behind/);
  t.true(await exists('vendor_api_logs', id));
});

test.serial('the audit trail: the setting refuses less than six years, the table refuses a younger delete', async (t) => {
  t.throws(() => testConfig(app.dbUrl, { SVC_RETENTION_AUDIT_DAYS: '2000' }), { message: /SVC_RETENTION_AUDIT_DAYS: .*six years/ });
  const id = await auditRow(6 * 365 - 1);
  await t.throwsAsync(db.query(`DELETE FROM audit_events WHERE id = $1`, [id]), { message: /append-only/ });
  const old = await auditRow(7 * 366);
  await t.throwsAsync(db.query(`UPDATE audit_events SET action = 'x' WHERE id = $1`, [old]), { message: /append-only/ }, 'an old row may go, never change');
});
