import test from 'ava';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { startTestApp, loginAs, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { serverMessages, type Client } from '../helpers/http.js';
import { spawnSvc } from '../helpers/processes.js';
import { buildUser } from '../helpers/factories.js';

let app: TestApp;
let db: pg.Client;
let doctor: Client; // verified, CUST-0001
let unverified: Client;
let clinic: Client; // same clinic, not the orderer
let clinic2: Client;
let rep: Client;
let admin: Client;

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  [doctor, unverified, clinic, clinic2, rep, admin] = await Promise.all(
    [
      'doctor@demo.svc.local',
      'unverified.doctor@demo.svc.local',
      'clinic@demo.svc.local',
      'clinic2@demo.svc.local',
      'rep@demo.svc.local',
      'admin@demo.svc.local',
    ].map((e) => loginAs(app, e)),
  );
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

const SO = '/api/resource/Sales Order';
const VAULT = 'Pharmacy Vault - MSW';

function body503a(sentinel: string, extra: Record<string, unknown> = {}) {
  return {
    customer: 'CUST-0001',
    transaction_date: '2026-11-22',
    price_list: 'Contract Pricing',
    shipping_address_name: 'CUST-0001-Shipping',
    items: [{ item_code: 'DEMO-TESTO-503A', qty: 1, rate: 79, warehouse: VAULT }],
    checkout_npi_number: '1234567893',
    checkout_patient_first_name: sentinel,
    checkout_patient_last_name: `${sentinel}-last`,
    checkout_patient_dob: '1980-04-02',
    checkout_patient_gender: 'Female',
    professional_use_confirmation: 1,
    compliance_agreement_accepted: 1,
    ...extra,
  };
}

test('an unverified doctor account is refused with 403 PermissionError', async (t) => {
  const res = await unverified.post(SO, body503a('ZZPHI-x'));
  t.is(res.status, 403);
  t.is(res.body.exc_type, 'PermissionError');
  t.regex(serverMessages(res.body)[0], /not a verified doctor account/);
});

test("503A rules: required fields, NPI check digit, confirmations, a real past date of birth; the NPI must be the doctor's own", async (t) => {
  const cases: [Record<string, unknown>, number, string][] = [
    [{ checkout_patient_last_name: undefined }, 417, 'checkout_patient_last_name is mandatory for a 503A order'],
    [{ checkout_npi_number: '1234567890' }, 417, 'checkout_npi_number is not a valid NPI'], // bad check digit: a validation error, not a permission one
    [{ checkout_npi_number: '1245319599' }, 403, 'checkout_npi_number does not match the verified doctor account'], // valid, but another doctor's
    [{ professional_use_confirmation: 0 }, 417, 'professional_use_confirmation must be 1 for a 503A order'],
    [{ compliance_agreement_accepted: undefined }, 417, 'compliance_agreement_accepted is mandatory for a 503A order'],
    [{ checkout_patient_dob: '2099-01-01' }, 417, 'checkout_patient_dob must be a real date in the past'],
    [{ checkout_patient_dob: '1980-02-30' }, 417, 'checkout_patient_dob must be a real date in the past'],
  ];
  for (const [extra, status, message] of cases) {
    const res = await doctor.post(SO, JSON.parse(JSON.stringify(body503a('ZZPHI-rules', extra))));
    t.is(res.status, status, message);
    t.deepEqual(serverMessages(res.body), [message]);
  }
  // staff naming an NPI that fails its check digit
  const bad = await rep.post(SO, body503a('ZZPHI-rules', { checkout_npi_number: '1234567890' }));
  t.is(bad.status, 403, 'no verified doctor with that NPI');
});

test('T40/T42: patient fields encrypted at rest, decrypted only for the parties allowed, every read audited, none sent to vendors or logs', async (t) => {
  const sentinel = `ZZPHI-${randomUUID()}`;
  const res = await doctor.post(SO, body503a(sentinel));
  t.is(res.status, 200, res.text);
  const name = res.body.data.name;
  t.is(res.body.data.grand_total, 79);
  const stored = await db.query(
    `SELECT checkout_patient_first_name AS f, checkout_patient_dob AS d, checkout_npi_number AS npi, is_503a FROM sales_orders WHERE name = $1`,
    [name],
  );
  t.regex(stored.rows[0].f, /^v1:/);
  t.regex(stored.rows[0].d, /^v1:/);
  t.false(JSON.stringify(stored.rows).includes(sentinel));
  t.is(stored.rows[0].npi, '1234567893');

  const own = await doctor.get(`${SO}/${name}`);
  t.like(own.body.data, {
    checkout_patient_first_name: sentinel,
    checkout_patient_dob: '1980-04-02',
    checkout_npi_number: '1234567893',
    is_503a: 1,
    professional_use_confirmation: 1,
  });
  const sameClinic = await clinic.get(`${SO}/${name}`);
  t.is(sameClinic.status, 200);
  t.false('checkout_patient_first_name' in sameClinic.body.data, "the clinic's buyer is no doctor: the order without the patient (minimum necessary)");
  const repView = await rep.get(`${SO}/${name}`);
  t.is(repView.status, 200);
  t.false('checkout_patient_first_name' in repView.body.data, 'a rep does not need patient data');
  t.is((await clinic2.get(`${SO}/${name}`)).status, 404);

  const submit = await doctor.put(`${SO}/${name}`, { docstatus: 1 });
  t.is(submit.status, 200);
  const outbox = await db.query(`SELECT payload::text AS p FROM outbox WHERE payload::text LIKE '%' || $1 || '%'`, [name]);
  t.true(outbox.rowCount! > 0);
  for (const r of outbox.rows) t.false(r.p.includes(sentinel), 'no patient data in outbox rows (vendor webhooks, routing, mail)');
  t.false(app.logs.join('\n').includes(sentinel), 'no patient data in logs');

  const audit = await db.query(`SELECT actor_id, action, fields FROM audit_events WHERE object_type = 'Sales Order' AND object_name = $1 ORDER BY id`, [name]);
  t.deepEqual(
    audit.rows.map((r) => r.action),
    ['create', 'read', 'read', 'read', 'submit'],
  );
  const patientFields = ['checkout_patient_first_name', 'checkout_patient_last_name', 'checkout_patient_dob', 'checkout_patient_gender'];
  t.deepEqual(audit.rows[1].fields, patientFields);
  t.deepEqual(audit.rows[2].fields, [], "the buyer's read is audited without patient fields");
  t.deepEqual(audit.rows[3].fields, [], 'the rep read is audited without patient fields');

  const update = await t.throwsAsync(db.query(`UPDATE audit_events SET action = 'x' WHERE object_name = $1`, [name]));
  t.regex(update.message, /append-only/);
  const del = await t.throwsAsync(db.query(`DELETE FROM audit_events WHERE object_name = $1`, [name]));
  t.regex(del.message, /append-only/);
});

test('doctor verification: admin endpoint (400 on a bad NPI, 403 for others) and the CLI', async (t) => {
  await buildUser({ email: 'new.doctor@demo.svc.local', full_name: 'Dr New' });
  await buildUser({ email: 'cli.doctor@demo.svc.local', full_name: 'Dr Cli' });
  const denied = await rep.post('/api/method/svc.doctors.verify', { email: 'new.doctor@demo.svc.local', npi: '1245319599', dea: 'AB1234563' });
  t.is(denied.status, 403);
  const badNpi = await admin.post('/api/method/svc.doctors.verify', { email: 'new.doctor@demo.svc.local', npi: '1245319598', dea: 'AB1234563' });
  t.is(badNpi.status, 400);
  t.deepEqual(serverMessages(badNpi.body), ['npi must be a valid 10-digit NPI']);
  const badDea = await admin.post('/api/method/svc.doctors.verify', { email: 'new.doctor@demo.svc.local', npi: '1245319599', dea: 'AB1234567' });
  t.is(badDea.status, 400);
  const ok = await admin.post('/api/method/svc.doctors.verify', { email: 'new.doctor@demo.svc.local', npi: '1245319599', dea: 'AB1234563' });
  t.is(ok.status, 200);
  t.like(ok.body.message, { email: 'new.doctor@demo.svc.local', doctor_npi: '1245319599', doctor_verified: true });
  const audit = await db.query(`SELECT action FROM audit_events WHERE object_type = 'User' AND object_name = 'new.doctor@demo.svc.local'`);
  t.deepEqual(audit.rows, [{ action: 'verify' }]);

  const cli = await spawnSvc(
    ['doctor', 'verify', 'cli.doctor@demo.svc.local', '--npi', '1234567893', '--dea', 'AB1234563'],
    { DATABASE_URL: app.dbUrl, USER: 'dora' },
    /Verified/,
  );
  const code = cli.proc.exitCode ?? (await new Promise<number | null>((r) => cli.proc.on('exit', (c) => r(c))));
  t.is(code, 0, cli.output());
  const { rows } = await db.query(
    `SELECT doctor_npi, doctor_verified_at IS NOT NULL AS v, doctor_verified_by FROM users WHERE email = 'cli.doctor@demo.svc.local'`,
  );
  t.deepEqual(rows[0], { doctor_npi: '1234567893', v: true, doctor_verified_by: 'cli:dora' }); // the CLI acts as cli:<os-user>
});
