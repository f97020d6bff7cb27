/**
 * Minimum necessary (issue 24, item 12): a 503A order's patient fields are read by the clinic's
 * verified doctors (the prescribing one among them) and administrators; the clinic's buyer, its API
 * user and an unverified doctor of the clinic, and reps, get the order without them (and lists never
 * carry them). Every read is audited, and the trail is reviewed with svc.audit.list (admins only)
 * and `svc audit list`, both a page at a time, the CLI's text showing control characters visibly.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { loginAs, startTestApp, tokenClient, type TestApp } from '../helpers/app.js';
import { svcBeside } from '../helpers/cli.js';
import type { Client, Json } from '../helpers/http.js';
import { buildUser } from '../helpers/factories.js';
import { systemActor } from '../../src/auth/actor.js';
import { verifyDoctor } from '../../src/orders/doctor.service.js';
import { recordAudit } from '../../src/audit/audit.service.js';

let app: TestApp;
const as: Record<string, Client> = {};
let sentinel: string;
let order: string;

const SO = '/api/resource/Sales Order';
const PATIENT_FIELDS = ['checkout_patient_first_name', 'checkout_patient_last_name', 'checkout_patient_dob', 'checkout_patient_gender'];

test.before(async () => {
  app = await startTestApp();
  for (const who of ['doctor', 'unverified.doctor', 'clinic', 'rep', 'admin', 'ops']) as[who] = await loginAs(app, `${who}@demo.svc.local`);
  as['clinic.api'] = await tokenClient(app, 'clinic.api@demo.svc.local');
  // a second verified doctor of the same clinic (not the prescriber)
  const colleague = await buildUser({ roles: ['Customer'], customer: 'CUST-0001' });
  await verifyDoctor(systemActor('test:verify'), { email: colleague.email, npi: '1245319599', dea: 'AB1234563' });
  as.colleague = await tokenClient(app, colleague.email);
  sentinel = `ZZPHI-${randomUUID()}`;
  const res = await as.doctor.post(SO, {
    customer: 'CUST-0001',
    transaction_date: '2026-11-22',
    price_list: 'Contract Pricing',
    shipping_address_name: 'CUST-0001-Shipping',
    items: [{ item_code: 'DEMO-TESTO-503A', qty: 1, rate: 79, warehouse: 'Pharmacy Vault - MSW' }],
    checkout_npi_number: '1234567893',
    checkout_patient_first_name: sentinel,
    checkout_patient_last_name: 'Last',
    checkout_patient_dob: '1980-04-02',
    checkout_patient_gender: 'Female',
    professional_use_confirmation: 1,
    compliance_agreement_accepted: 1,
  });
  if (res.status !== 200) throw new Error(res.text);
  order = res.body.data.name;
});
test.after.always(async () => {
  await app?.stop();
});

test.serial(
  "the clinic's verified doctors and admins read the patient; its buyer, API user and unverified doctor, a rep and operations get the order without it",
  async (t) => {
    for (const who of ['doctor', 'colleague', 'admin']) {
      const res = await as[who].get(`${SO}/${order}`);
      t.is(res.status, 200, `${who}: ${res.text}`);
      t.is(res.body.data.checkout_patient_first_name, sentinel, `${who} reads the patient`);
    }
    for (const who of ['clinic', 'clinic.api', 'unverified.doctor', 'rep', 'ops']) {
      const res = await as[who].get(`${SO}/${order}`);
      t.is(res.status, 200, `${who} reads the order: ${res.text}`);
      t.false(res.text.includes(sentinel), `${who} does not read the patient`);
      for (const f of PATIENT_FIELDS) t.false(f in res.body.data, `${who}: ${f}`);
      t.is(res.body.data.checkout_npi_number, '1234567893', `${who} still sees the prescriber's NPI`);
    }
    // lists never carry patient fields, whoever asks
    for (const who of ['doctor', 'clinic', 'admin']) {
      const list = await as[who].get(SO, { fields: ['*'], filters: [['name', '=', order]] });
      t.is(list.status, 200, list.text);
      t.false(list.text.includes(sentinel), `${who}'s list`);
      t.is((await as[who].get(SO, { fields: ['checkout_patient_first_name'] })).status, 400);
    }
  },
);

test.serial('svc.audit.list: admins review the reads of an order a page at a time, newest first, by object, actor and time; others are refused', async (t) => {
  await as.clinic.get(`${SO}/${order}`);
  await as.doctor.get(`${SO}/${order}`);
  const all = await as.admin.get('/api/method/svc.audit.list', { object: `Sales Order/${order}` });
  t.is(all.status, 200, all.text);
  const events: Json[] = all.body.message.events;
  t.is(all.body.message.total, events.length);
  t.deepEqual(
    events.map((e) => e.id),
    [...events.map((e) => e.id)].sort((a, b) => b - a),
    'newest first',
  );
  t.like(events[0], { action: 'read', object_type: 'Sales Order', object_name: order, actor_email: 'doctor@demo.svc.local', fields: PATIENT_FIELDS });
  t.like(events[1], { action: 'read', actor_email: 'clinic@demo.svc.local', fields: [] });
  t.is(events.at(-1).action, 'create');
  const page2 = await as.admin.get('/api/method/svc.audit.list', { object: order, page: 2, page_length: 1 });
  t.like(page2.body.message, { page: 2, page_length: 1, total: events.length });
  t.is(page2.body.message.events[0].id, events[1].id);
  const byActor = await as.admin.get('/api/method/svc.audit.list', { actor: 'clinic@demo.svc.local', object: order });
  t.true(byActor.body.message.events.length >= 1);
  t.true(byActor.body.message.events.every((e: Json) => e.actor_email === 'clinic@demo.svc.local'));
  const future = await as.admin.get('/api/method/svc.audit.list', { since: '2999-01-01' });
  t.like(future.body.message, { total: 0, events: [] });
  t.is((await as.admin.get('/api/method/svc.audit.list', { since: 'yesterday' })).status, 400);
  for (const who of ['rep', 'ops', 'clinic', 'doctor']) {
    const refused = await as[who].get('/api/method/svc.audit.list', { object: order });
    t.is(refused.status, 403, who);
    t.false(refused.text.includes(order), who);
  }
});

test.serial('svc audit list: the same rows as text and JSON; control characters in a row are shown, never sent to the terminal', async (t) => {
  const hostile = `SO-\u001b[2J\nFAKE approved\u202e-${randomUUID().slice(0, 8)}`;
  await recordAudit(undefined, systemActor('test:hostile'), { action: 'read', object_type: 'Sales Order', object_name: hostile, fields: [] });
  const text = await svcBeside(app, ['audit', 'list', '--actor', 'test:hostile']);
  t.is(text.code, 0, text.stderr);
  t.false(/[\p{Cc}\u202e]/u.test(text.out.join('')), 'no raw control character reaches the terminal');
  t.is(text.out.length, 3, `header, one row, the page line: ${text.stdout}`);
  t.true(text.out[1].includes('SO-\\u001b[2J\\nFAKE approved\\u202e-'), text.out[1]);
  t.regex(text.out[2], /^page 1 of 1 \(1 rows\)$/);
  const doc = await svcBeside(app, ['audit', 'list', '--object', `Sales Order/${order}`, '--page-length', '2', '--json']);
  t.is(doc.code, 0, doc.stderr);
  const page = JSON.parse(doc.stdout);
  t.like(page, { page: 1, page_length: 2 });
  t.is(page.events.length, 2);
  t.true(page.total > 2);
  const api = await as.admin.get('/api/method/svc.audit.list', { object: `Sales Order/${order}`, page_length: 2 });
  t.deepEqual(page, api.body.message, 'the CLI and the method answer from one service');
  const denied = await svcBeside(app, ['audit', 'list', '--as', 'rep@demo.svc.local']);
  t.not(denied.code, 0, 'a rep acting through the CLI is refused too');
});
