/**
 * Issue 24 item 10: register_vendor does not tell whether an address has an account. A known and an
 * unknown address get the same answer (status and body); the known one gets no second account and is
 * told by e-mail (through the outbox, sent by the worker to a real SMTP server). The 20-an-hour limit
 * per address counts both alike.
 */
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { selectRows } from '../../src/db/sequelize.js';
import { OutboxWorker } from '../../src/jobs/outbox-worker.js';
import { eventually } from '../helpers/eventually.js';
import { buildUser, unique } from '../helpers/factories.js';
import { startSmtpSink, type SmtpSink } from '../simulators/smtp.js';

let app: TestApp;
let smtp: SmtpSink;
test.before(async () => {
  smtp = await startSmtpSink();
  // the loopback peer is a trusted proxy, so each test names its own client address (X-Forwarded-For)
  app = await startTestApp({ env: { SMTP_URL: smtp.url, SVC_TRUSTED_PROXIES: '127.0.0.1' } });
});
test.after.always(async () => {
  await app?.stop();
  await smtp?.stop();
});

const register = (email: string, client = '198.51.100.1') =>
  app.http.post(
    '/api/method/svc.api.register_vendor',
    { sales_representative_name: 'Probe Person', email, password: 'a-long-password-1', country: 'United States' },
    { 'x-forwarded-for': client },
  );

/**
 * The limit counts per clock hour: a run that starts in an hour's last minute waits for the next one,
 * so its 21 registrations fall in one window (at most a minute, and only then).
 */
async function awayFromHourEnd(): Promise<void> {
  const left = 3_600_000 - (Date.now() % 3_600_000);
  if (left < 60_000) await new Promise((resolve) => setTimeout(resolve, left + 1_000));
}

/** The answer without the address it names (which differs between the two by construction). */
const shapeOf = (res: { status: number; body: { message?: Record<string, unknown> } }) => ({
  status: res.status,
  body: JSON.stringify({ ...res.body, message: { ...res.body.message, email: '<address>' } }),
});

test.serial('a known and an unknown address answer alike; the known one is told by e-mail and gets no second account', async (t) => {
  const known = (await buildUser({ email: `${unique('known')}@clinic.test`, roles: ['Customer'] })).email;
  const unknown = `${unique('fresh')}@vendor.test`;
  const [a, b] = [await register(known), await register(unknown)];
  t.deepEqual(shapeOf(a), shapeOf(b));
  t.is(a.status, 200, a.text);
  t.deepEqual(a.body.message, { email: known, status: 'Pending Approval' });
  // the known address keeps its one account, untouched, and no profile names it
  const users = await selectRows<{ roles: string[]; vendor: string | null }>(`SELECT roles, vendor FROM users WHERE email = $1`, [known]);
  t.deepEqual(users, [{ roles: ['Customer'], vendor: null }]);
  t.is((await selectRows(`SELECT 1 FROM vendor_profiles WHERE email = $1`, [known])).length, 0);
  t.is((await selectRows(`SELECT 1 FROM vendor_profiles WHERE email = $1`, [unknown])).length, 1);
  // the known account is told, through the outbox and the worker, by real SMTP; the new one is not mailed
  t.is((await selectRows(`SELECT 1 FROM outbox WHERE kind = 'email' AND target = $1`, [unknown])).length, 0);
  const worker = new OutboxWorker({ databaseUrl: app.dbUrl, ...app.config.worker, kinds: ['email'] });
  await worker.start();
  try {
    await eventually(() => smtp.received.some((m) => m.to.includes(known)), { message: `the notice to ${known} to be sent` });
  } finally {
    await worker.stop();
  }
  const notice = smtp.received.find((m) => m.to.includes(known))!;
  t.regex(notice.subject, /Vendor registration with your e-mail address/);
  t.notRegex(notice.raw, /a-long-password-1|Probe Person/, 'nothing the form sent but the address');
});

test.serial('the 20-an-hour limit counts known and unknown addresses alike', async (t) => {
  const known = (await buildUser({ email: `${unique('known-limit')}@clinic.test` })).email;
  const client = '198.51.100.2'; // an address of its own: the other test's registrations do not count here
  await awayFromHourEnd();
  const statuses: number[] = [];
  for (let i = 0; i < 21; i++) statuses.push((await register(i % 2 ? known : `${unique('limit')}@vendor.test`, client)).status);
  t.deepEqual(statuses, [...Array(20).fill(200), 429]);
  const over = [await register(known, client), await register(`${unique('over')}@vendor.test`, client)];
  t.deepEqual(
    over.map((r) => [r.status, r.body.exc_type]),
    [
      [429, 'TooManyRequestsError'],
      [429, 'TooManyRequestsError'],
    ],
  );
});
