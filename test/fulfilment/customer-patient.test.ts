/**
 * The Customer's patient demographics (issue 26 section 6): set through PUT /api/resource/Customer
 * and used by svc.rxpartner.ensure_patient with only `customer` (as the spec shows it) against the
 * rxpartner simulator; encrypted in the table (raw SQL shows no plaintext); read and changed only
 * by those with the need (the clinic's own users, operations, admins), each read and change audited;
 * a sales rep reads the Customer without them, in the document and in lists, and cannot set them.
 */
import test from 'ava';
import type pg from 'pg';
import { startTestApp, tokenClient, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { buildCustomer, buildUser } from '../helpers/factories.js';
import type { Client } from '../helpers/http.js';
import type { RunningSimulator } from '../../src/simulators/index.js';
import { closePartnerAgent } from '../../src/fulfilment/partner-http.js';
import { configureRx, rxSimulator } from '../partners/rxpartner/rx-helpers.js';

let app: TestApp;
let db: pg.Client;
let sim: RunningSimulator;
let ops: Client;
let rep: Client;
let clinic: Client;

const PATIENT = { first_name: 'Imogen', last_name: 'Vanterpool', date_of_birth: '1968-07-19', gender: 'female' };
const ENSURE = '/api/method/svc.rxpartner.ensure_patient';

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  sim = await rxSimulator(app);
  await configureRx(sim.url);
  ops = await tokenClient(app, (await buildUser({ roles: ['Operations'] })).email);
  rep = await tokenClient(app, 'rep@demo.svc.local');
  clinic = await tokenClient(app, 'clinic@demo.svc.local');
});
test.after.always(async () => {
  await sim?.close();
  await closePartnerAgent();
  await db?.end();
  await app?.stop();
});

const audits = async (customer: string, action: string) =>
  (
    await db.query(`SELECT actor_id, fields FROM audit_events WHERE object_type = 'Customer' AND object_name = $1 AND action = $2 ORDER BY id`, [
      customer,
      action,
    ])
  ).rows;

test.serial('ensure_patient with only customer: the Customer’s demographics, set through the API, go to the partner', async (t) => {
  const c = await buildCustomer({ customer_name: 'Direct Patient Account' });
  const before = await ops.post(ENSURE, { customer: c.name });
  t.is(before.status, 417, 'no birth date yet');
  t.regex(before.text, /has no date_of_birth: set it on the Customer/);

  const put = await ops.put(`/api/resource/Customer/${c.name}`, PATIENT);
  t.is(put.status, 200, put.text);
  t.like(put.body.data, PATIENT);
  const [change] = await audits(c.name, 'update');
  t.deepEqual(change.fields, ['first_name', 'last_name', 'date_of_birth', 'gender']);

  const res = await ops.post(ENSURE, { customer: c.name });
  t.is(res.status, 200, res.text);
  t.like(res.body.message, { customer: c.name, status: 'active', created: true });
  const patients = (await (await fetch(`${sim.url}/_sim/patients`)).json()) as {
    patients: { patientId: string; firstName: string; lastName: string; dateOfBirth: string; gender?: string }[];
  };
  const sent = patients.patients.find((p) => p.patientId === res.body.message.rxpartner_patient_id);
  t.like(sent, { firstName: 'Imogen', lastName: 'Vanterpool', dateOfBirth: '1968-07-19', gender: 'female' });
  t.true(
    (await audits(c.name, 'read')).some((a) => a.fields.includes('date_of_birth')),
    'the read for the partner is audited',
  );

  // the arguments stay overrides
  const other = await buildCustomer();
  await ops.put(`/api/resource/Customer/${other.name}`, { first_name: 'Olwen', last_name: 'Brightwater', date_of_birth: '1990-01-01' });
  t.is((await ops.post(ENSURE, { customer: other.name, date_of_birth: '1991-02-02' })).status, 200);
  const again = (await (await fetch(`${sim.url}/_sim/patients`)).json()) as { patients: { lastName: string; dateOfBirth: string }[] };
  t.like(
    again.patients.find((p) => p.lastName === 'Brightwater'),
    { dateOfBirth: '1991-02-02' },
  );
});

test.serial('encrypted at rest: raw SQL shows no plaintext', async (t) => {
  const c = await buildCustomer();
  t.is((await ops.put(`/api/resource/Customer/${c.name}`, PATIENT)).status, 200);
  const row = (
    await db.query<Record<string, string>>(
      `SELECT patient_first_name, patient_last_name, patient_date_of_birth, patient_gender FROM customers WHERE name = $1`,
      [c.name],
    )
  ).rows[0];
  for (const v of Object.values(row)) t.regex(v, /^v1:/);
  const text = JSON.stringify(row);
  for (const plain of Object.values(PATIENT)) t.false(text.includes(plain), plain);
  const found = (await db.query(`SELECT count(*)::int AS n FROM customers c WHERE c::text LIKE '%Vanterpool%' OR c::text LIKE '%1968-07-19%'`)).rows[0].n;
  t.is(found, 0);
});

test.serial(
  'only those with the need read or set them: a rep reads the Customer without them (document and list); the clinic reads its own, audited',
  async (t) => {
    // CUST-0001 is Rick Rep's customer; its demo patient is seeded
    const asRep = await rep.get('/api/resource/Customer/CUST-0001');
    t.is(asRep.status, 200, asRep.text);
    for (const f of ['first_name', 'last_name', 'date_of_birth', 'gender']) t.false(f in asRep.body.data, f);
    const list = await rep.get(`/api/resource/Customer?fields=${encodeURIComponent('["name","date_of_birth"]')}`);
    t.not(list.status, 200, 'not a list field');
    const listed = await rep.get(`/api/resource/Customer?fields=${encodeURIComponent('["*"]')}`);
    t.false(JSON.stringify(listed.body).includes('1975-01-31'));
    t.is((await rep.put('/api/resource/Customer/CUST-0001', { date_of_birth: '1970-01-01' })).status, 403);

    const before = (await audits('CUST-0001', 'read')).length;
    const own = await clinic.get('/api/resource/Customer/CUST-0001');
    t.like(own.body.data, { first_name: 'Dana', last_name: 'Harbor', date_of_birth: '1975-01-31', gender: 'female' });
    const reads = await audits('CUST-0001', 'read');
    t.is(reads.length, before + 1);
    t.deepEqual(reads.at(-1).fields, ['first_name', 'last_name', 'date_of_birth', 'gender']);
    t.is((await clinic.put('/api/resource/Customer/CUST-0001', { gender: 'other' })).status, 200);
    t.is((await clinic.put('/api/resource/Customer/CUST-0001', { customer_name: 'Renamed' })).status, 400, 'only the demographics');
    t.is((await clinic.put('/api/resource/Customer/CUST-0001', { date_of_birth: '31/01/1975' })).status, 400);
    t.is((await clinic.put('/api/resource/Customer/CUST-0002', { gender: 'other' })).status, 404, 'another clinic’s Customer');
  },
);
