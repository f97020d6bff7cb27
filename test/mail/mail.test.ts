/**
 * E-mail, the first outbox kind: through a real SMTP server (smtp-server on loopback) when SMTP_URL
 * is set, and as .eml files under the mail folder when it is not.
 */
import test from 'ava';
import type pg from 'pg';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createServer, type Server, type Socket } from 'node:net';
import { eventually } from '../helpers/eventually.js';
import { createTestDatabase, pgClient } from '../helpers/db.js';
import { testConfig } from '../helpers/app.js';
import { createLogger, initRuntime } from '../../src/shared/runtime.js';
import { closeDatabase, db, initDatabase } from '../../src/db/sequelize.js';
import { OutboxWorker } from '../../src/jobs/outbox-worker.js';
import { queueMail, smtpOptions, verifyMailTransport } from '../../src/mail/mail.service.js';
import '../../src/modules.js'; // the outbox handlers a worker process has
import { startSmtpSink, type SmtpSink } from '../simulators/smtp.js';

let dbUrl: string;
let pgc: pg.Client;
let smtp: SmtpSink;
let mailDir: string;

test.before(async () => {
  dbUrl = await createTestDatabase();
  pgc = await pgClient(dbUrl);
  smtp = await startSmtpSink();
  mailDir = await mkdtemp(join(tmpdir(), 'svc-mail-'));
});
test.after.always(async () => {
  await pgc?.end();
  await closeDatabase();
  await smtp?.stop();
  if (mailDir) await rm(mailDir, { recursive: true, force: true });
});

async function drain(ids: number[]): Promise<void> {
  const worker = new OutboxWorker({ databaseUrl: dbUrl, pollMs: 100, leaseSeconds: 5, concurrency: 4, batchSize: 4, kinds: ['email'] });
  await worker.start();
  try {
    await eventually(async () => (await pgc.query(`SELECT 1 FROM outbox WHERE id = ANY($1) AND status = 'done'`, [ids])).rowCount === ids.length, {
      message: 'the mail to be sent',
    });
  } finally {
    await worker.stop();
  }
}

test.serial('with SMTP_URL, queued mail is delivered by SMTP with the delivery id as Message-ID', async (t) => {
  const config = testConfig(dbUrl, { SMTP_URL: smtp.url, SVC_MAIL_FROM: 'svc <no-reply@svc.test>', SVC_LOG_LEVEL: 'silent' });
  initRuntime(config);
  initDatabase(config);
  const rows = await db().transaction(async (transaction) => [
    await queueMail(transaction, {
      to: 'buyer@clinic.example',
      subject: 'Order SO-0001 confirmed',
      text: 'Thank you for your order.',
      category: 'order-confirmation',
    }),
    await queueMail(transaction, { to: ['a@x.example', 'b@x.example'], subject: 'Two recipients', text: 'Hello', html: '<p>Hello</p>' }),
  ]);
  // nothing is sent from a transaction that rolls back
  await db()
    .transaction(async (transaction) => {
      await queueMail(transaction, { to: 'nobody@x.example', subject: 'Never sent', text: 'x' });
      await transaction.rollback();
    })
    .catch(() => undefined);
  const ids = (await pgc.query(`SELECT id FROM outbox WHERE delivery_id = ANY($1)`, [rows.map((r) => r.delivery_id)])).rows.map((r) => Number(r.id));
  await drain(ids);
  t.is(smtp.received.length, 2);
  const confirm = smtp.received.find((m) => m.subject === 'Order SO-0001 confirmed')!;
  t.is(confirm.messageId, `${rows[0].delivery_id}@svc`);
  t.deepEqual(confirm.to, ['buyer@clinic.example']);
  t.regex(confirm.raw, /^From: svc <no-reply@svc\.test>/m);
  t.regex(confirm.raw, /Thank you for your order\./);
  t.deepEqual(smtp.received.find((m) => m.subject === 'Two recipients')!.to, ['a@x.example', 'b@x.example']);
  t.false(smtp.received.some((m) => m.subject === 'Never sent'));
  const { rows: outbox } = await pgc.query(`SELECT kind, topic, target, status, attempts FROM outbox WHERE id = ANY($1) ORDER BY id`, [ids]);
  t.deepEqual(outbox, [
    { kind: 'email', topic: 'order-confirmation', target: 'buyer@clinic.example', status: 'done', attempts: 1 },
    { kind: 'email', topic: 'mail', target: 'a@x.example,b@x.example', status: 'done', attempts: 1 },
  ]);
  const attempts = await pgc.query(`SELECT ok, response_excerpt FROM outbox_attempts WHERE outbox_id = ANY($1)`, [ids]);
  t.true(attempts.rows.every((a) => a.ok && /250/.test(a.response_excerpt)));
});

test.serial('without SMTP_URL, mail is written as an .eml file and logged with its subject', async (t) => {
  const logs: string[] = [];
  const config = testConfig(dbUrl, { SVC_MAIL_DIR: mailDir, SVC_LOG_LEVEL: 'info' });
  t.is(config.smtpUrl, undefined);
  initRuntime(config, { logger: createLogger(config, new Writable({ write: (c, _e, cb) => void (logs.push(String(c)), cb()) })) });
  const [row] = await db().transaction(async (transaction) => [
    await queueMail(transaction, { to: 'clinic@demo.svc.local', subject: 'Your password was changed', text: 'If this was not you, call us.' }),
  ]);
  const id = Number((await pgc.query(`SELECT id FROM outbox WHERE delivery_id = $1`, [row.delivery_id])).rows[0].id);
  await drain([id]);
  const files = await readdir(mailDir);
  t.deepEqual(files, [`${row.delivery_id}.eml`]);
  const file = join(mailDir, files[0]);
  const eml = await readFile(file, 'utf8');
  t.regex(eml, /^Subject: Your password was changed$/m);
  t.regex(eml, /^To: clinic@demo\.svc\.local$/m);
  t.regex(eml, new RegExp(`^Message-ID: <${row.delivery_id}@svc>$`, 'm'));
  t.is((await stat(file)).mode & 0o777, 0o600);
  t.true(logs.some((l) => l.includes('mail written: Your password was changed')));
  t.deepEqual((await pgc.query(`SELECT response_excerpt FROM outbox_attempts WHERE outbox_id = $1`, [id])).rows, [{ response_excerpt: file }]);
});

test.serial(
  'an SMTP server that accepts the connection and never answers fails the attempt within SVC_MAIL_TIMEOUT_MS: retried later, never marked sent',
  async (t) => {
    // a TCP server that takes connections and says nothing (nodemailer alone would wait 30 s for the greeting, 10 min on a silent socket)
    const sockets: Socket[] = [];
    const mute: Server = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
    const port = (mute.address() as { port: number }).port;
    try {
      const config = testConfig(dbUrl, { SMTP_URL: `smtp://127.0.0.1:${port}`, SVC_MAIL_TIMEOUT_MS: '300', SVC_LOG_LEVEL: 'silent' });
      t.is(config.mailTimeoutMs, 300);
      initRuntime(config);
      initDatabase(config);
      const [row] = await db().transaction(async (transaction) => [
        await queueMail(transaction, { to: 'slow@clinic.example', subject: 'Never answered', text: 'x' }),
      ]);
      const id = Number((await pgc.query(`SELECT id FROM outbox WHERE delivery_id = $1`, [row.delivery_id])).rows[0].id);
      const worker = new OutboxWorker({ databaseUrl: dbUrl, pollMs: 100, leaseSeconds: 60, concurrency: 1, batchSize: 1, kinds: ['email'] });
      await worker.start();
      try {
        const attempt = await eventually(
          async () =>
            (await pgc.query(`SELECT ok, error FROM outbox_attempts WHERE outbox_id = $1`, [id])).rows[0] as { ok: boolean; error: string } | undefined,
          { message: 'the attempt to end' },
        );
        t.false(attempt.ok);
        t.regex(attempt.error, new RegExp(`^SMTP server 127\\.0\\.0\\.1:${port}: .*\\(no answer within 300 ms, SVC_MAIL_TIMEOUT_MS\\)$`));
        // retried later (the next attempt a minute on), never marked sent
        const { rows } = await pgc.query(`SELECT status, attempts, last_error FROM outbox WHERE id = $1`, [id]);
        t.like(rows[0], { status: 'pending', attempts: 1 });
        t.is(rows[0].last_error, attempt.error);
      } finally {
        await worker.stop();
      }
      t.true(sockets.length >= 1, 'the server was reached');
      // svc check's probe gives up as well, and says why
      const probe = await verifyMailTransport(config);
      t.false(probe.ok);
      t.regex(probe.detail, new RegExp(`^SMTP server 127\\.0\\.0\\.1:${port}: .*\\(no answer within 300 ms`));
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => mute.close(resolve));
    }
  },
);

test('SMTP time limits: the service’s unless SMTP_URL names its own', (t) => {
  t.like(smtpOptions('smtp://user:p%40ss@mail.example:2525', 20_000), {
    host: 'mail.example',
    port: 2525,
    secure: false,
    auth: { user: 'user', pass: 'p@ss' },
    connectionTimeout: 20_000,
    greetingTimeout: 20_000,
    socketTimeout: 20_000,
  });
  t.like(smtpOptions('smtps://mail.example?socketTimeout=90000', 20_000), { secure: true, connectionTimeout: 20_000, socketTimeout: 90_000 });
});
