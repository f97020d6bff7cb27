/**
 * Issue 15: `svc customer create --email` also creates the customer's login (Customer role, linked to
 * the new customer, no password) and queues its invitation through the outbox, in the transaction
 * that creates the customer. Real PostgreSQL, the CLI beside a running service, a real SMTP sink
 * and the outbox worker: the token is sealed at rest, sets the password once (a second use and an
 * expired token are refused), and the customer then signs in with POST /api/method/login and sees
 * only its own account and orders. Serial: the CLI runs swap the process-wide pool.
 */
import test from 'ava';
import { loginAs, startTestApp, tokenClient, type TestApp } from '../helpers/app.js';
import { serverMessages, type Client } from '../helpers/http.js';
import { svcBeside } from '../helpers/cli.js';
import { execute, selectOne, selectRows } from '../../src/db/sequelize.js';
import { OutboxWorker } from '../../src/jobs/outbox-worker.js';
import { eventually } from '../helpers/eventually.js';
import { startSmtpSink, type SmtpSink } from '../simulators/smtp.js';

let app: TestApp;
let smtp: SmtpSink;
let admin: Client;

const ACCEPT = '/api/method/svc.customer_accounts.accept_invitation';

test.before(async () => {
  smtp = await startSmtpSink();
  app = await startTestApp({ env: { SMTP_URL: smtp.url } });
  admin = await tokenClient(app, 'admin@demo.svc.local');
});
test.after.always(async () => {
  await app?.stop();
  await smtp?.stop();
});

const counts = async (email: string, customerName: string) => ({
  customers: (await selectRows(`SELECT 1 FROM customers WHERE customer_name = $1`, [customerName])).length,
  users: (await selectRows(`SELECT 1 FROM users WHERE lower(email) = lower($1)`, [email])).length,
  mails: (await selectRows(`SELECT 1 FROM outbox WHERE kind = 'email' AND target = $1`, [email])).length,
  invitations: (await selectRows(`SELECT 1 FROM customer_invitations WHERE email = $1`, [email])).length,
});

/** Sends the queued e-mails of `email` through the worker and answers the token of the last one delivered. */
async function deliveredToken(email: string): Promise<string> {
  const worker = new OutboxWorker({ databaseUrl: app.dbUrl, ...app.config.worker, kinds: ['email'] });
  await worker.start();
  try {
    await eventually(async () => (await selectRows(`SELECT 1 FROM outbox WHERE kind = 'email' AND target = $1 AND status <> 'done'`, [email])).length === 0, {
      message: `the invitation of ${email} to be sent`,
    });
  } finally {
    await worker.stop();
  }
  const delivered = smtp.received.filter((m) => m.to.includes(email)).at(-1);
  if (!delivered) throw new Error(`no mail to ${email}`);
  return /"token": "([A-Za-z0-9_-]{43})"/.exec(delivered.raw.replace(/=\r?\n/g, ''))![1];
}

test.serial(
  'svc customer create --email: customer, login and sealed invitation in one transaction; the token sets the password once; the customer signs in',
  async (t) => {
    const email = 'buyer@lakeside.example';
    const res = await svcBeside(app, [
      'customer',
      'create',
      '--customer-name',
      'Lakeside Clinic',
      '--email',
      email,
      '--address-line1',
      '1 Lake Road',
      '--city',
      'Chicago',
      '--as',
      'sales.rep@demo.svc.local',
      '--json',
    ]);
    t.is(res.code, 0, res.stderr);
    const doc = JSON.parse(res.stdout) as Record<string, unknown>;
    t.like(doc, { customer_name: 'Lakeside Clinic', territory: 'Central', assigned_rep: 'Riley Rivera', invitation_queued: true, login_email: email });
    const user = await selectOne<{ roles: string[]; customer: string; password_hash: string | null; enabled: boolean }>(
      `SELECT roles, customer, password_hash, enabled FROM users WHERE email = $1`,
      [email],
    );
    t.deepEqual(user, { roles: ['Customer'], customer: doc.name as string, password_hash: null, enabled: true });
    const audit = await selectRows<{ action: string; object_type: string }>(
      `SELECT action, object_type FROM audit_events WHERE object_name IN ($1, $2) ORDER BY id`,
      [doc.name, email],
    );
    t.deepEqual(
      audit.map((a) => `${a.action} ${a.object_type}`),
      ['create Customer', 'invite User'],
    );

    // at rest, the outbox row holds no usable token: a slot in the text, the token sealed with the service key
    const row = await selectOne<{ text: string; payload: string }>(
      `SELECT payload->>'text' AS text, payload::text AS payload FROM outbox WHERE kind = 'email' AND topic = 'customer-invitation' AND target = $1`,
      [email],
    );
    t.regex(row!.text, /"token": "\{\{secret:token\}\}"/);
    const sealed = /"token": "(v1:[^"]+)"/.exec(row!.payload)![1];
    t.is((await app.http.post(ACCEPT, { token: sealed, password: 'Lakeside!2026a' })).status, 417, 'the sealed copy is no token');
    t.false(res.stdout.includes(sealed));

    const token = await deliveredToken(email);
    t.false(res.stdout.includes(token), 'the CLI never prints the token');
    t.is((await selectRows(`SELECT 1 FROM outbox WHERE payload::text LIKE '%' || $1 || '%'`, [token])).length, 0);
    t.is((await selectRows(`SELECT 1 FROM customer_invitations WHERE token_hash = $1`, [token])).length, 0, 'only the hash is stored');
    t.is((await app.http.post(ACCEPT, { token, password: 'short' })).status, 400);
    t.is((await app.http.post('/api/method/svc.subrep_team.accept_invitation', { token, password: 'Lakeside!2026b' })).status, 417, 'not a sub-rep token');
    const ok = await app.http.post(ACCEPT, { token, password: 'Lakeside!2026x' });
    t.is(ok.status, 200);
    t.deepEqual(ok.body.message, { email, customer: doc.name });
    const again = await app.http.post(ACCEPT, { token, password: 'Lakeside!2026y' });
    t.is(again.status, 417, 'used once');
    t.deepEqual(serverMessages(again.body), ['This invitation is unknown, used or expired']);

    const buyer = await loginAs(app, email, 'Lakeside!2026x');
    const customers = await buyer.get('/api/resource/Customer', { fields: ['name'], limit_page_length: 0 });
    t.deepEqual(customers.body.data, [{ name: doc.name }]);
    const orders = await buyer.get('/api/resource/Sales Order', { fields: ['name', 'customer'], limit_page_length: 0 });
    t.is(orders.status, 200);
    t.deepEqual(orders.body.data, [], 'a new customer has no orders, and sees no other clinic’s');
    const others = (await admin.get('/api/resource/Sales Order', { fields: ['name'], limit_page_length: 5 })).body.data as { name: string }[];
    t.true(others.length > 0, 'other customers have orders');
    t.is((await buyer.get(`/api/resource/Sales Order/${others[0].name}`)).status, 404, 'another clinic’s order is not found');
  },
);

test.serial('an expired invitation is refused', async (t) => {
  const email = 'late@harborview.example';
  const res = await svcBeside(app, ['customer', 'create', '--customer-name', 'Harborview Late', '--email', email]);
  t.is(res.code, 0, res.stderr);
  t.regex(res.stdout, new RegExp(`Login ${email} created; invitation queued \\(expires `));
  const token = await deliveredToken(email);
  const hashed = `SELECT 1 FROM customer_invitations WHERE token_hash = encode(sha256(convert_to($1, 'UTF8')), 'hex') AND accepted_at IS NULL`;
  t.is((await selectRows(hashed, [token])).length, 1, 'the delivered token is the invitation’s, unused');
  // time moved in the table, not waited: no service sets a past expiry
  await execute(`UPDATE customer_invitations SET expires_at = now() - interval '1 minute' WHERE email = $1`, [email]);
  t.is((await app.http.post(ACCEPT, { token, password: 'Harborview!2026' })).status, 417);
  t.is((await selectOne<{ password_hash: string | null }>(`SELECT password_hash FROM users WHERE email = $1`, [email]))!.password_hash, null);
});

test.serial('a failure leaves no customer, no user and no mail; --no-invite and no --email send nothing', async (t) => {
  const email = 'buyer@goldlist.example';
  const bad = await svcBeside(app, ['customer', 'create', '--customer-name', 'Gold Clinic', '--email', email, '--price-list', 'Gold List']);
  t.is(bad.code, 1);
  t.regex(bad.stderr, /Price List Gold List not found/);
  t.deepEqual(await counts(email, 'Gold Clinic'), { customers: 0, users: 0, mails: 0, invitations: 0 });

  const skip = await svcBeside(app, ['customer', 'create', '--customer-name', 'Quiet Clinic', '--email', 'office@quiet.example', '--no-invite', '--json']);
  t.is(skip.code, 0, skip.stderr);
  t.like(JSON.parse(skip.stdout), { email: 'office@quiet.example', invitation_queued: false });
  t.deepEqual(await counts('office@quiet.example', 'Quiet Clinic'), { customers: 1, users: 0, mails: 0, invitations: 0 });

  const none = await svcBeside(app, ['customer', 'create', '--customer-name', 'Mailless Clinic']);
  t.is(none.code, 0, none.stderr);
  t.is(none.out.at(-1), 'No login invitation queued');
  t.is((await selectRows(`SELECT 1 FROM users WHERE customer IN (SELECT name FROM customers WHERE customer_name = 'Mailless Clinic')`)).length, 0);
});

test.serial('an e-mail that already has a user is refused (409): no second user, nothing created', async (t) => {
  const res = await svcBeside(app, ['customer', 'create', '--customer-name', 'Harbor Again', '--email', 'CLINIC@demo.svc.local', '--json']);
  t.is(res.code, 1);
  t.regex(res.stderr, /A user with e-mail CLINIC@demo\.svc\.local already exists: no login created/);
  t.deepEqual(await counts('clinic@demo.svc.local', 'Harbor Again'), { customers: 0, users: 1, mails: 0, invitations: 0 });
  const http = await admin.post('/api/resource/Customer', { customer_name: 'Harbor Again', email_id: 'clinic@demo.svc.local', send_invitation: 1 });
  t.is(http.status, 409);
  t.is(http.body.exc_type, 'DuplicateEntryError');
});

test.serial('over HTTP a Customer creates no user unless send_invitation is asked; the policy scopes who invites', async (t) => {
  const riley = await tokenClient(app, 'sales.rep@demo.svc.local');
  const plain = await riley.post('/api/resource/Customer', { customer_name: 'Plain Clinic', email_id: 'plain@clinic.example' });
  t.is(plain.status, 200);
  t.is(plain.body.data.invitation_queued, undefined, "Frappe's document, unchanged");
  t.deepEqual(await counts('plain@clinic.example', 'Plain Clinic'), { customers: 1, users: 0, mails: 0, invitations: 0 });

  const asked = await riley.post('/api/resource/Customer', { customer_name: 'Asked Clinic', email_id: 'asked@clinic.example', send_invitation: 1 });
  t.is(asked.status, 200);
  t.like(asked.body.data, { invitation_queued: true, login_email: 'asked@clinic.example', assigned_rep: 'Riley Rivera' });
  t.deepEqual(await counts('asked@clinic.example', 'Asked Clinic'), { customers: 1, users: 1, mails: 1, invitations: 1 });
  t.false(JSON.stringify(asked.body).includes('token'));

  t.is((await riley.post('/api/resource/Customer', { customer_name: 'No Mail', send_invitation: true })).status, 400);
  const outside = await riley.post('/api/resource/Customer', {
    customer_name: 'East Invite',
    territory: 'East',
    email_id: 'east@clinic.example',
    send_invitation: 1,
  });
  t.is(outside.status, 403);
  t.deepEqual(await counts('east@clinic.example', 'East Invite'), { customers: 0, users: 0, mails: 0, invitations: 0 });
  const clinic = await tokenClient(app, 'clinic@demo.svc.local');
  t.is((await clinic.post('/api/resource/Customer', { customer_name: 'Self', email_id: 'self@clinic.example', send_invitation: 1 })).status, 403);
});
