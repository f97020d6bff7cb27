/**
 * Issue 24 §4: only accounts that attach files upload (no vendor account, pending or otherwise); a
 * per-account hourly rate and storage quota kept in PostgreSQL (so another `svc serve` process counts
 * the same); a write the disk refuses (a real EFBIG: the server runs under `ulimit -f`) answers in
 * the spec's error format and leaves no row and no partial file.
 */
import test from 'ava';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { startTestApp, loginAs, tokenClient, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { buildUser, buildVendor, actorOf } from '../helpers/factories.js';
import { serverMessages, type Client } from '../helpers/http.js';
import { spawnServe, type Child } from '../helpers/processes.js';
import { can } from '../../src/auth/policy/index.js';
import { uploadFile } from '../../src/files/files.service.js';
import type { Actor } from '../../src/auth/actor.js';

const RATE = 4;
const QUOTA = 6000;
let app: TestApp;
let db: pg.Client;
let store: string;

test.before(async () => {
  store = await mkdtemp(join(tmpdir(), 'svc-upload-limits-'));
  app = await startTestApp({
    env: { SVC_FILES_DIR: store, SVC_UPLOAD_LIMIT_BYTES: '4096', SVC_UPLOAD_RATE_PER_HOUR: String(RATE), SVC_UPLOAD_QUOTA_BYTES: String(QUOTA) },
  });
  db = await pgClient(app.dbUrl);
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
  await rm(store, { recursive: true, force: true });
});

const pdf = (size: number) => Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(size - 9, 0x41)]);

async function upload(client: Client, data: Buffer, baseUrl = app.url) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(data)]), 'scan.pdf');
  const headers: Record<string, string> = { accept: 'application/json' };
  if (client.auth.token) headers.authorization = `token ${client.auth.token}`;
  if (client.auth.cookie) headers.cookie = client.auth.cookie;
  if (client.auth.csrf) headers['x-svc-csrf-token'] = client.auth.csrf;
  const res = await fetch(`${baseUrl}/api/method/upload_file`, { method: 'POST', headers, body: form });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

const filesOf = async (email: string) => Number((await db.query(`SELECT count(*) AS n FROM files WHERE owner_email = $1`, [email])).rows[0].n);

test('the policy: users who place orders and admins upload; no vendor account does, whatever its state, nor staff who attach nothing', async (t) => {
  const vendorUser = async (status: 'Approved' | 'Pending Approval' | 'Rejected', suspended = false) => {
    const v = await buildVendor({ status, suspended, api_enabled: false, credentials: false });
    return { user: await actorOf(v.email), bearer: v.actor };
  };
  const pending = await vendorUser('Pending Approval');
  const rejected = await vendorUser('Rejected');
  const suspended = await vendorUser('Approved', true);
  const approved = await vendorUser('Approved');
  const role = async (r: Actor['roles'][number]) => (await buildUser({ roles: [r] })).actor;
  const decisions = {
    pendingUser: pending.user,
    rejectedUser: rejected.user,
    suspendedUser: suspended.user,
    approvedUser: approved.user,
    approvedBearer: approved.bearer,
    catalogManager: await role('Catalog Manager'),
    officer: await role('Marketplace Officer'),
    customer: await role('Customer'),
    rep: await role('Sales Rep'),
    operations: await role('Operations'),
    admin: await role('Marketplace Admin'),
  };
  t.deepEqual(Object.fromEntries(Object.entries(decisions).map(([k, a]) => [k, can(a, 'create', 'File')])), {
    pendingUser: false,
    rejectedUser: false,
    suspendedUser: false,
    approvedUser: false,
    approvedBearer: false,
    catalogManager: false,
    officer: false,
    customer: true,
    rep: true,
    operations: true,
    admin: true,
  });
  // refused by the policy: a pending vendor's user acts for nobody (and no vendor account attaches files)
  const refused = await t.throwsAsync(uploadFile(pending.user, { file_name: 'x.pdf', data: pdf(100) }));
  t.like(refused, { excType: 'PermissionError', status: 403 });
});

// serial: the other tests in this file write `.tmp` files into the same store while they upload
test.serial('a self-registered vendor still Pending cannot upload over HTTP: refused, nothing stored', async (t) => {
  const v = await buildVendor({ status: 'Pending Approval', api_enabled: false, credentials: false });
  const client = await tokenClient(app, v.email);
  const res = await upload(client, pdf(1000));
  t.true([401, 403].includes(res.status), `status ${res.status}`);
  t.is(await filesOf(v.email), 0);
  t.deepEqual(
    (await readdir(store)).filter((f) => f.endsWith('.tmp')),
    [],
  );
});

test('the hourly rate per account: the upload past it is 429 with Retry-After, in the spec format; another account is unaffected', async (t) => {
  const user = await buildUser({ roles: ['Customer'] });
  const client = await tokenClient(app, user.email);
  for (let i = 0; i < RATE; i += 1) t.is((await upload(client, pdf(200))).status, 200);
  const over = await upload(client, pdf(200));
  t.is(over.status, 429);
  t.like(over.body, { exc_type: 'TooManyRequestsError' });
  t.deepEqual(serverMessages(over.body), [`Too many uploads: at most ${RATE} an hour per account`]);
  t.true(Number(over.headers.get('retry-after')) > 3500);
  t.is(await filesOf(user.email), RATE);
  const other = await tokenClient(app, (await buildUser({ roles: ['Customer'] })).email);
  t.is((await upload(other, pdf(200))).status, 200);
});

test('the storage quota per account: a file that does not fit is 413; concurrent uploads never exceed it together', async (t) => {
  const user = await buildUser({ roles: ['Sales Rep'] });
  const client = await tokenClient(app, user.email);
  t.is((await upload(client, pdf(3000))).status, 200);
  const over = await upload(client, pdf(3001));
  t.is(over.status, 413);
  t.like(over.body, { exc_type: 'RequestEntityTooLargeError' });
  t.regex(String(over.body.exception), /Storage quota exceeded: this account stores 3000 of its 6000 bytes/);
  t.is((await upload(client, pdf(3000))).status, 200, 'exactly the quota fits');

  const racer = await tokenClient(app, (await buildUser({ roles: ['Customer'] })).email);
  const all = await Promise.all(Array.from({ length: RATE }, () => upload(racer, pdf(2500))));
  t.deepEqual(all.map((r) => r.status).sort(), [200, 200, 413, 413]);
});

test('another `svc serve` process counts the same; a write the disk refuses (EFBIG under ulimit -f) → 507 in the spec format, no row, no partial file', async (t) => {
  const user = await buildUser({ roles: ['Customer'] });
  const client = await tokenClient(app, user.email);
  for (let i = 0; i < RATE; i += 1) t.is((await upload(client, pdf(100))).status, 200);

  const full = await mkdtemp(join(tmpdir(), 'svc-upload-full-'));
  let child: Child | undefined;
  try {
    // 16 KiB is the largest file the child may write: a 20 kB upload seals (base64) to more than that
    const env = { SVC_FILES_DIR: full, SVC_UPLOAD_LIMIT_BYTES: '65536', SVC_UPLOAD_RATE_PER_HOUR: String(RATE), SVC_UPLOAD_QUOTA_BYTES: '1000000' };
    child = await spawnServe(app.dbUrl, env, { fileSizeKb: 16 });
    t.is((await upload(client, pdf(100), child.url)).status, 429, 'the rate is counted in PostgreSQL, not per process');

    const doctor = await loginAs({ url: child.url! }, 'doctor@demo.svc.local');
    const before = await filesOf('doctor@demo.svc.local');
    const small = await upload(doctor, pdf(2000), child.url);
    t.is(small.status, 200, 'the child stores what fits');
    const refused = await upload(doctor, pdf(20_000), child.url);
    t.is(refused.status, 507);
    t.like(refused.body, { exc_type: 'InsufficientStorageError' });
    t.deepEqual(serverMessages(refused.body), ['The file store is full: the file was not stored. Try again later or tell the operators']);
    t.is(await filesOf('doctor@demo.svc.local'), before + 1, 'no row for the refused file');
    const onDisk = await readdir(full);
    t.deepEqual(
      onDisk.filter((f) => f.endsWith('.tmp')),
      [],
      'no partial file',
    );
    t.is(onDisk.length, 1, 'only the file that fitted');
    const { rows } = await db.query(
      `SELECT count(*)::int AS n FROM audit_events WHERE actor_id = (SELECT id::text FROM users WHERE email = $1) AND action = 'upload'`,
      ['doctor@demo.svc.local'],
    );
    t.is(rows[0].n, before + 1, 'no audit row for what was not stored');
  } finally {
    await child?.stop();
    await rm(full, { recursive: true, force: true });
  }
});
