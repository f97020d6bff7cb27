/**
 * Issue 24 §4: the worker's unattached-files job (a singleton under its advisory lock) deletes an
 * upload nobody attached within a day, row and stored file, audited; a file attached to an order or
 * to a doctor's account stays, and so does a fresh one. It also sweeps the store of a partial write
 * and of a stored file whose row never committed.
 */
import test from 'ava';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { startTestApp, loginAs, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import type { Client } from '../helpers/http.js';
import { runJobOnce } from '../../src/jobs/index.js';
import { unattachedFilesJob } from '../../src/files/unattached-files.job.js';

let app: TestApp;
let db: pg.Client;
let store: string;
let doctor: Client;
let admin: Client;

test.before(async () => {
  store = await mkdtemp(join(tmpdir(), 'svc-unattached-'));
  app = await startTestApp({ env: { SVC_FILES_DIR: store } });
  db = await pgClient(app.dbUrl);
  [doctor, admin] = await Promise.all([loginAs(app, 'doctor@demo.svc.local'), loginAs(app, 'admin@demo.svc.local')]);
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
  await rm(store, { recursive: true, force: true });
});

const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(300, 0x41)]);

async function upload(client: Client): Promise<{ name: string; file_url: string }> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(PDF)]), 'scan.pdf');
  const headers: Record<string, string> = { accept: 'application/json', cookie: client.auth.cookie!, 'x-svc-csrf-token': client.auth.csrf! };
  const res = await fetch(`${app.url}/api/method/upload_file`, { method: 'POST', headers, body: form });
  if (res.status !== 200) throw new Error(`upload: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { message: { name: string; file_url: string } }).message;
}

// time moved in the table, not waited: no service ages an upload
const ageRow = (name: string, hours: number) => db.query(`UPDATE files SET created_at = now() - make_interval(hours => $2) WHERE name = $1`, [name, hours]);
const rowExists = async (name: string) => (await db.query(`SELECT 1 FROM files WHERE name = $1`, [name])).rowCount === 1;
const onDisk = async () => new Set(await readdir(store));

test.serial('a day-old unattached upload goes (row, file, audited); attached ones, fresh ones and committed rows stay; strays are swept', async (t) => {
  const stale = await upload(doctor);
  const fresh = await upload(doctor);
  const ordered = await upload(doctor);
  const certificate = await upload(admin);

  const order = await doctor.post('/api/resource/Sales Order', {
    customer: 'CUST-0001',
    transaction_date: '2026-11-22',
    price_list: 'Contract Pricing',
    shipping_address_name: 'CUST-0001-Shipping',
    items: [{ item_code: 'DEMO-TESTO-503A', qty: 1, rate: 79, warehouse: 'Pharmacy Vault - MSW' }],
    checkout_npi_number: '1234567893',
    checkout_patient_first_name: 'Pat',
    checkout_patient_last_name: 'Doe',
    checkout_patient_dob: '1975-01-01',
    checkout_patient_gender: 'Male',
    professional_use_confirmation: 1,
    compliance_agreement_accepted: 1,
    checkout_prescription_file: ordered.file_url,
  });
  t.is(order.status, 200, JSON.stringify(order.body));
  const verified = await admin.post('/api/method/svc.doctors.verify', {
    email: 'unverified.doctor@demo.svc.local',
    npi: '1245319599',
    dea: 'AB1234563',
    dea_license_file: certificate.name,
  });
  t.is(verified.status, 200, JSON.stringify(verified.body));

  for (const f of [stale, ordered, certificate]) await ageRow(f.name, 25);
  await ageRow(fresh.name, 23);
  // strays: a partial write of a process that died two hours ago, a stored file whose row never committed
  const old = new Date(Date.now() - 2 * 24 * 3600 * 1000);
  await writeFile(join(store, 'f-deadwriter.enc.tmp'), 'partial');
  await writeFile(join(store, 'f-norow.enc'), 'sealed');
  await utimes(join(store, 'f-deadwriter.enc.tmp'), old, old);
  await utimes(join(store, 'f-norow.enc'), old, old);
  const storedKey = async (name: string) => (await db.query(`SELECT storage_key FROM files WHERE name = $1`, [name])).rows[0].storage_key as string;
  const keys = { fresh: await storedKey(fresh.name), ordered: await storedKey(ordered.name), certificate: await storedKey(certificate.name) };
  const staleKey = await storedKey(stale.name);

  t.true(await runJobOnce(unattachedFilesJob));

  t.false(await rowExists(stale.name), 'the day-old unattached upload is gone');
  t.true(await rowExists(fresh.name));
  t.true(await rowExists(ordered.name), 'attached to an order');
  t.true(await rowExists(certificate.name), "attached to the doctor's account");
  const files = await onDisk();
  t.false(files.has(staleKey));
  for (const k of Object.values(keys)) t.true(files.has(k), k);
  t.false(files.has('f-deadwriter.enc.tmp'));
  t.false(files.has('f-norow.enc'));
  const audit = await db.query(`SELECT actor_id, action FROM audit_events WHERE object_type = 'File' AND object_name = $1 ORDER BY id`, [stale.name]);
  t.deepEqual(
    audit.rows.map((r) => [r.action, r.actor_id]),
    [
      ['upload', audit.rows[0].actor_id],
      ['delete', 'job:unattached-files'],
    ],
  );
  const downloaded = await doctor.request('GET', stale.file_url);
  t.is(downloaded.status, 404);
});

test.serial('a singleton: while one process holds the lock, another run skips the tick', async (t) => {
  const holder = await pgClient(app.dbUrl);
  try {
    await holder.query('BEGIN');
    await holder.query(`SELECT pg_advisory_xact_lock(hashtext('svc:job:unattached-files'))`);
    t.false(await runJobOnce(unattachedFilesJob));
  } finally {
    await holder.query('ROLLBACK');
    await holder.end();
  }
  t.true(await runJobOnce(unattachedFilesJob));
});
