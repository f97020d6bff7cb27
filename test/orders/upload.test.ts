import test from 'ava';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type pg from 'pg';
import { startTestApp, loginAs, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { serverMessages, type Client } from '../helpers/http.js';
import { projectRoot } from '../../src/config/index.js';

const LIMIT = 4096;
let app: TestApp;
let db: pg.Client;
let doctor: Client;
let clinic: Client;
let clinic2: Client;
let admin: Client;

test.before(async () => {
  app = await startTestApp({ env: { SVC_UPLOAD_LIMIT_BYTES: String(LIMIT) } });
  db = await pgClient(app.dbUrl);
  [doctor, clinic, clinic2, admin] = await Promise.all(
    ['doctor@demo.svc.local', 'clinic@demo.svc.local', 'clinic2@demo.svc.local', 'admin@demo.svc.local'].map((e) => loginAs(app, e)),
  );
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from('ZZPHI-prescription-secret '.repeat(20)), Buffer.from('\n%%EOF\n')]);
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 1)]);

async function upload(client: Client, data: Buffer, fileName: string, fields: Record<string, string> = { is_private: '1' }) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(data)]), fileName);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (client.auth.cookie) headers.cookie = client.auth.cookie;
  if (client.auth.csrf) headers['x-svc-csrf-token'] = client.auth.csrf;
  const res = await fetch(`${app.url}/api/method/upload_file`, { method: 'POST', headers, body: form });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

test("T38: upload_file stores a PDF encrypted and answers Frappe's File document", async (t) => {
  const res = await upload(doctor, PDF, 'rx scan.pdf');
  t.is(res.status, 200);
  const f = res.body.message;
  t.like(f, { file_name: 'rx scan.pdf', is_private: 1, file_size: PDF.length, doctype: 'File', is_folder: 0, owner: 'doctor@demo.svc.local', folder: 'Home' });
  t.regex(f.file_url, /^\/private\/files\/f-\w+\/rx%20scan\.pdf$/);
  const { rows } = await db.query(`SELECT storage_key, content_type FROM files WHERE name = $1`, [f.name]);
  t.is(rows[0].content_type, 'application/pdf');
  const onDisk = await readFile(join(resolve(projectRoot, app.config.filesDir), rows[0].storage_key), 'utf8');
  t.false(onDisk.includes('ZZPHI'), 'encrypted at rest');
  t.false(onDisk.includes('%PDF'));
});

test('T38: wrong magic bytes → 415; over the size limit → 413; no file → 400', async (t) => {
  const fake = await upload(doctor, Buffer.from('MZ this is not a pdf'), 'evil.pdf');
  t.is(fake.status, 415);
  t.deepEqual(serverMessages(fake.body), ['Only PDF, PNG and JPEG files are accepted']);
  const big = await upload(doctor, Buffer.concat([Buffer.from('%PDF-'), Buffer.alloc(LIMIT + 10, 32)]), 'big.pdf');
  t.is(big.status, 413);
  const huge = await upload(doctor, Buffer.concat([Buffer.from('%PDF-'), Buffer.alloc(LIMIT + 200 * 1024, 32)]), 'huge.pdf');
  t.is(huge.status, 413);
  t.is(huge.body.exc_type, 'RequestEntityTooLargeError');
  const png = await upload(doctor, PNG, 'scan.png');
  t.is(png.status, 200);
  const none = await doctor.post('/api/method/upload_file', {});
  t.true([400, 415].includes(none.status));
  const anon = await app.http.post('/api/method/upload_file', {});
  t.is(anon.status, 401);
});

test('download: uploader, admins and the verified doctors of the order that references it (patient data); audited; others 404', async (t) => {
  const res = await upload(doctor, PDF, 'rx.pdf');
  const f = res.body.message;
  const own = await doctor.request('GET', f.file_url);
  t.is(own.status, 200);
  t.is(own.headers.get('content-type'), 'application/pdf');
  t.is(own.text, PDF.toString('utf8'));
  t.is((await clinic.request('GET', f.file_url)).status, 404, 'not attached yet: only the uploader');
  t.is((await clinic2.get('/api/method/svc.files.download', { file: f.name })).status, 404);
  t.is((await admin.request('GET', f.file_url)).status, 200);

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
    checkout_prescription_file: f.file_url,
  });
  t.is(order.status, 200, JSON.stringify(order.body));
  t.is((await clinic.request('GET', f.file_url)).status, 404, "the clinic's buyer: no verified doctor, so not the prescription");
  t.is((await admin.request('GET', f.file_url)).status, 200, 'an administrator');
  t.is((await clinic2.request('GET', f.file_url)).status, 404);
  const stolen = await clinic2.post('/api/resource/Sales Order', {
    customer: 'CUST-0002',
    transaction_date: '2026-11-22',
    shipping_address_name: 'CUST-0002-Shipping',
    items: [{ item_code: 'DEMO-N95', qty: 1, rate: 25, warehouse: 'Main Warehouse - MSE' }],
    delivery_date: '2026-12-01',
    checkout_prescription_file: f.file_url,
  });
  t.true([200, 417].includes(stolen.status));
  const audit = await db.query(`SELECT actor_id, action, fields FROM audit_events WHERE object_type = 'File' AND object_name = $1 ORDER BY id`, [f.name]);
  t.deepEqual(
    audit.rows.map((r) => r.action),
    ['upload', 'download', 'download', 'download'],
  );
  t.deepEqual(audit.rows[3].fields, ['checkout_prescription_file']);
});
