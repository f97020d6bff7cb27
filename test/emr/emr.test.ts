/**
 * The EMR flow (issue 13) end to end over HTTP against the rxpartner and NPPES simulators, with a
 * worker applying partner events: register_webhook, ensure_patient (idempotent, one partner patient
 * under concurrency, its failure a follow-up for operations), a 503A order, sync_to_rxpartner (the
 * prescriber's NPI checked by check digit and registry first, cached; 417 naming it otherwise and
 * nothing sent; 409 once synced), the partner's signed webhooks, poll_rxpartner_status (safe to
 * repeat, forward only); who may call what; no patient data in the logs, every patient access audited.
 *
 * The worker runs only partner events and mail: the order's automatic routing is left to
 * sync_to_rxpartner here, so which of the two sends first is not a race of the test.
 */
import test from 'ava';
import type pg from 'pg';
import { startTestApp, tokenClient, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { eventually } from '../helpers/eventually.js';
import { buildCustomer, buildUser } from '../helpers/factories.js';
import { serverMessages, type Client } from '../helpers/http.js';
import type { OutboxWorker } from '../../src/jobs/outbox-worker.js';
import { startNppesSimulator, type RunningNppes, type RunningSimulator } from '../../src/simulators/index.js';
import { closePartnerAgent } from '../../src/fulfilment/partner-http.js';
import { svcBeside } from '../helpers/cli.js';
import { startWorker } from '../fulfilment/helpers.js';
import { configureRx, DOCTOR_NPI, rxFields, rxOrder, rxSimulator } from '../partners/rxpartner/rx-helpers.js';

let app: TestApp;
let db: pg.Client;
let sim: RunningSimulator;
let nppes: RunningNppes;
let worker: OutboxWorker;
let clinic: Client;
let doctor: Client;
let opsClient: Client;

const M = (name: string) => `/api/method/svc.rxpartner.${name}`;
const PATIENT = { first: 'Alice', last: 'Quinton', dob: '1980-04-02' };

test.before(async () => {
  nppes = await startNppesSimulator();
  app = await startTestApp({
    env: { SVC_NPPES_URL: nppes.url },
    config: { webhook: { timeoutMs: 10_000, allowPrivateTargets: true, retryTimeScale: 0.01 } },
  });
  db = await pgClient(app.dbUrl);
  sim = await rxSimulator(app);
  await configureRx(sim.url);
  worker = await startWorker(app, ['partner_event', 'mail']);
  clinic = await tokenClient(app, 'clinic@demo.svc.local');
  doctor = await tokenClient(app, 'doctor@demo.svc.local');
  const ops = await buildUser({ roles: ['Operations'] });
  opsClient = await tokenClient(app, ops.email);
});
test.after.always(async () => {
  await worker?.stop(2000);
  await sim?.close();
  await nppes?.close();
  await closePartnerAgent();
  await db?.end();
  await app?.stop();
});

const count = async (q: string, params: unknown[] = []) => (await db.query(q, params)).rows[0].n as number;
const sent = (name: string) => sim.orders().filter((o) => o.dedupeKey === name);
const registryAsked = (npi: string) => nppes.requests().filter((r) => r.path.includes(`number=${npi}`)).length;

test.serial('the EMR flow: register_webhook, ensure_patient, order, sync_to_rxpartner, the partner’s webhooks, poll', async (t) => {
  // one-time setup: operations tell the partner where to push events (https outside development)
  const reg = await opsClient.post(M('register_webhook'), { public_base_url: 'https://svc.example.test/', contact_email: 'ops@svc.example.test' });
  t.is(reg.status, 200, reg.text);
  t.is(reg.body.message.webhook_url, 'https://svc.example.test/api/method/svc.rxpartner.webhook');
  t.true(reg.body.message.ok);
  t.truthy(reg.body.message.partner_webhook_id);
  t.true(reg.body.message.events.includes('PATIENT_CREATION_FAILURE'));

  // the clinic's own patient at the pharmacy: created once, then answered from the registry
  const first = await clinic.post(M('ensure_patient'), { customer: 'CUST-0001', date_of_birth: '1975-01-31' });
  t.is(first.status, 200, first.text);
  const patientId = first.body.message.rxpartner_patient_id;
  t.regex(patientId, /^PAT-/);
  t.like(first.body.message, { customer: 'CUST-0001', status: 'active', created: true });
  t.regex(first.headers.get('server-timing') ?? '', /^partner;dur=\d+$/);
  const creates = () => sim.requests().filter((r) => r.path === '/v1/patients/create').length;
  const before = creates();
  const again = await clinic.post(M('ensure_patient'), { customer: 'CUST-0001' });
  t.is(again.status, 200, again.text);
  t.like(again.body.message, { rxpartner_patient_id: patientId, status: 'active', created: false });
  t.is(creates(), before, 'a known patient costs no partner call');
  t.is(
    (await db.query(`SELECT partner_patient_id FROM customer_partner_patients WHERE customer = 'CUST-0001' AND partner = 'rxpartner' AND patient_key = ''`))
      .rows[0].partner_patient_id,
    patientId,
  );

  // stored on the Customer: GET /api/resource/Customer shows it
  const customerDoc = await clinic.get('/api/resource/Customer/CUST-0001');
  t.is(customerDoc.status, 200, customerDoc.text);
  t.is(customerDoc.body.data.rxpartner_patient_id, patientId);

  // a 503A order, then its prescription sent on request
  const name = await rxOrder(PATIENT);
  const sync = await doctor.post(M('sync_to_rxpartner'), { sales_order: name });
  t.is(sync.status, 200, sync.text);
  t.like(sync.body.message, { sales_order: name, status: 'sent', rxpartner_status: 'Received', provider_npi: DOCTOR_NPI });
  const ref = sync.body.message.rxpartner_reference_id as string;
  t.regex(ref, /^RX-\d+$/);
  const [order] = sent(name);
  t.like(order.body, { externalOrderId: name, practiceId: 'PRACTICE-7', prescriber: { npi: DOCTOR_NPI } });
  t.is(registryAsked(DOCTOR_NPI), 1, 'the registry was asked once');
  t.is((await db.query(`SELECT outcome FROM npi_registry_entries WHERE npi = $1`, [DOCTOR_NPI])).rows[0].outcome, 'active');

  // once the partner has it: 409, nothing sent again (spec: "Order already synced to a vendor")
  const twice = await doctor.post(M('sync_to_rxpartner'), { sales_order: name });
  t.is(twice.status, 409, twice.text);
  t.regex(serverMessages(twice.body)[0], new RegExp(`${name} is already synced to rxpartner \\(reference ${ref}\\)`));
  t.is(sent(name).length, 1);

  // the partner's signed webhooks move the order: Received, then Shipped with tracking
  await eventually(async () => (await rxFields(db, name)).rxpartner_status === 'Received', { message: 'ORDER_RECEIVED applied' });
  await sim.advance(ref);
  const shipped = await eventually(
    async () => {
      const f = await rxFields(db, name);
      return f.rxpartner_status === 'Shipped' && f.rxpartner_tracking_number ? f : undefined;
    },
    { message: 'ORDER_SHIPPED applied' },
  );
  t.is(shipped.rxpartner_reference_id, ref);

  // the poll: the partner's status and tracking, safe to repeat
  const poll = await clinic.get(M('poll_rxpartner_status'), { sales_order: name });
  t.is(poll.status, 200, poll.text);
  t.like(poll.body.message, { sales_order: name, status: 'Shipped', tracking_number: shipped.rxpartner_tracking_number, carrier: shipped.rxpartner_carrier });
  const events = await count(`SELECT count(*)::int AS n FROM partner_events WHERE partner = 'rxpartner'`);
  const poll2 = await clinic.get(M('poll_rxpartner_status'), { sales_order: name });
  t.deepEqual(poll2.body.message, poll.body.message);
  t.is(await count(`SELECT count(*)::int AS n FROM partner_events WHERE partner = 'rxpartner'`), events, 'a repeated poll stores nothing new');

  // Delivered at the partner: the poll answers it whether or not the webhook was applied yet
  await sim.advance(ref);
  const delivered = await clinic.get(M('poll_rxpartner_status'), { sales_order: name });
  t.is(delivered.body.message.status, 'Delivered');
  await eventually(async () => (await rxFields(db, name)).rxpartner_status === 'Delivered', { message: 'Delivered applied' });
  // forward only: a late RECEIVED changes nothing
  const late = await clinic.get(M('poll_rxpartner_status'), { sales_order: name });
  t.is(late.body.message.status, 'Delivered');

  // patient data: sent to the partner only, every access audited, never logged
  const audits = (
    await db.query(`SELECT action, object_type, object_name FROM audit_events WHERE object_name IN ('CUST-0001', $1) ORDER BY id`, [name])
  ).rows.map((r) => `${r.action} ${r.object_type}`);
  t.true(audits.includes('send Customer'), audits.join(', '));
  t.true(audits.includes('read Customer'), audits.join(', '));
  t.true(audits.includes('read Sales Order'), audits.join(', '));
  t.true(audits.includes('sync Sales Order'), audits.join(', '));
  const logs = app.logs.join('');
  for (const secret of [PATIENT.first, PATIENT.last, PATIENT.dob, '1975-01-31']) t.false(logs.includes(secret), `${secret} is not logged`);
});

test.serial('NPI failures are a 417 naming the NPI, before anything is sent: check digit, not in the registry, deactivated, registry down', async (t) => {
  const name = await rxOrder({ first: 'Bob', last: 'Npicheck', dob: '1990-02-03' });
  // the checkout's NPI changed after the order: no service edits it, and each check of it is the subject
  const setNpi = (npi: string) => db.query(`UPDATE sales_orders SET checkout_npi_number = $2 WHERE name = $1`, [name, npi]);
  const refused = async (npi: string, pattern: RegExp) => {
    await setNpi(npi);
    const res = await doctor.post(M('sync_to_rxpartner'), { sales_order: name });
    t.is(res.status, 417, res.text);
    t.is(res.body.exc_type, 'ValidationError');
    const msg = serverMessages(res.body)[0];
    t.true(msg.includes(npi), msg);
    t.regex(msg, pattern);
    t.is(sent(name).length, 0, 'nothing sent to the pharmacy');
  };
  const asked = nppes.requests().length;
  await refused('1234567890', /check digit/);
  t.is(nppes.requests().length, asked, 'a mistyped NPI is not looked up');

  await refused('1245319599', /not in the national provider registry/);
  await refused('1245319599', /not in the national provider registry/);
  t.is(registryAsked('1245319599'), 1, 'the registry’s "not found" is cached');

  nppes.register({ number: '1987654328', firstName: 'RETIRED', lastName: 'DOC', status: 'D' });
  await refused('1987654328', /deactivated/);

  nppes.failNext(1, { status: 503 });
  await refused('1555555550', /did not answer .*HTTP 503.*nothing was sent/);
  t.is(await count(`SELECT count(*)::int AS n FROM npi_registry_entries WHERE npi = '1555555550'`), 0, 'a registry that did not answer is not cached');
  t.is(await count(`SELECT count(*)::int AS n FROM partner_calls WHERE sales_order = $1`, [name]), 0, 'no partner call at all');

  // the registry answers again (1555555550 is not a provider there) and a valid NPI goes through
  await setNpi(DOCTOR_NPI);
  const ok = await doctor.post(M('sync_to_rxpartner'), { sales_order: name });
  t.is(ok.status, 200, ok.text);
  t.is(sent(name).length, 1);
});

test.serial('the automatic route checks the NPI too: a prescription with an unregistered NPI fails for good, nothing sent', async (t) => {
  const routeWorker = await startWorker(app, ['fulfilment_route']);
  try {
    const name = await rxOrder({ first: 'Cara', last: 'Autoroute', dob: '1970-05-06' });
    // a valid NPI set as above: no service edits it
    await db.query(`UPDATE sales_orders SET checkout_npi_number = '1245319599' WHERE name = $1`, [name]);
    await eventually(async () => (await count(`SELECT count(*)::int AS n FROM partner_orders WHERE sales_order = $1`, [name])) === 1, { message: 'routed' });
    const partnerWorker = await startWorker(app, ['partner_order']);
    try {
      const po = await eventually(
        async () => (await db.query(`SELECT status, last_error FROM partner_orders WHERE sales_order = $1 AND status = 'failed'`, [name])).rows[0],
        { message: 'failed for good' },
      );
      t.regex(po.last_error, /Provider NPI 1245319599 is not in the national provider registry/);
      t.is(sent(name).length, 0);
    } finally {
      await partnerWorker.stop(2000);
    }
  } finally {
    await routeWorker.stop(2000);
  }
});

test.serial('sync_to_rxpartner racing the workers’ automatic send: one e-script at the partner, whoever sends it', async (t) => {
  const workers = await Promise.all([startWorker(app, ['fulfilment_route', 'partner_order']), startWorker(app, ['fulfilment_route', 'partner_order'])]);
  try {
    const names = await Promise.all([1, 2, 3].map((i) => rxOrder({ first: 'Gail', last: `Race${i}`, dob: '1977-03-0' + String(i) })));
    const answers = await Promise.all(names.map((name) => doctor.post(M('sync_to_rxpartner'), { sales_order: name })));
    for (const [i, name] of names.entries()) {
      const a = answers[i];
      // the request sent it, waited for a worker's attempt, or found it sent: never a second order
      t.true(a.status === 200 || a.status === 409, a.text);
      if (a.status === 200) t.is(a.body.message.status, 'sent', a.text);
      const po = await eventually(
        async () => (await db.query(`SELECT status, partner_reference FROM partner_orders WHERE sales_order = $1 AND status = 'created'`, [name])).rows[0],
        { message: `${name} created` },
      );
      t.is(sent(name).length, 1, `${name}: one e-script`);
      t.is(sent(name)[0].ref, po.partner_reference);
      if (a.status === 200) t.is(a.body.message.rxpartner_reference_id, po.partner_reference);
    }
  } finally {
    await Promise.all(workers.map((w) => w.stop(2000)));
  }
});

test.serial('who may call: another clinic’s order is not found, reps and vendors may not sync, only operations register the webhook', async (t) => {
  const name = await rxOrder({ first: 'Dan', last: 'Permission', dob: '1985-07-08' });
  const other = await buildCustomer();
  const otherUser = await buildUser({ customer: other.name });
  const otherClinic = await tokenClient(app, otherUser.email);
  const s = await otherClinic.post(M('sync_to_rxpartner'), { sales_order: name });
  t.is(s.status, 404, s.text);
  const p = await otherClinic.get(M('poll_rxpartner_status'), { sales_order: name });
  t.is(p.status, 404, p.text);
  const e = await otherClinic.post(M('ensure_patient'), { customer: 'CUST-0001', date_of_birth: '1970-01-01' });
  t.is(e.status, 404, e.text);
  t.is(sent(name).length, 0);

  const rep = await tokenClient(app, (await buildUser({ roles: ['Sales Rep'] })).email);
  t.is((await rep.post(M('sync_to_rxpartner'), { sales_order: name })).status, 403);
  t.is((await rep.post(M('ensure_patient'), { customer: 'CUST-0001' })).status, 403);
  t.is((await clinic.post(M('register_webhook'), { public_base_url: 'https://x.example', contact_email: 'a@b.example' })).status, 403);
  t.is((await clinic.get(M('list_follow_ups'))).status, 403);
  t.is((await app.http.post(M('sync_to_rxpartner'), { sales_order: name })).status, 401);

  // https outside development; a draft is not sent
  const http = await opsClient.post(M('register_webhook'), { public_base_url: 'http://svc.example.test', contact_email: 'ops@svc.example.test' });
  t.is(http.status, 400);
  t.regex(serverMessages(http.body)[0], /https/);
  t.is((await opsClient.post(M('register_webhook'), { public_base_url: 'https://svc.example.test', contact_email: 'nope' })).status, 400);
  t.is((await doctor.post(M('sync_to_rxpartner'), {})).status, 400);
});

test.serial('ensure_patient is idempotent under concurrency: one patient at the partner, one id for every caller', async (t) => {
  const c = await buildCustomer({ customer_name: 'Erin Concurrent' });
  const user = await buildUser({ customer: c.name });
  const client = await tokenClient(app, user.email);
  const creates = () => sim.requests().filter((r) => r.path === '/v1/patients/create').length;
  const before = creates();
  const answers = await Promise.all(Array.from({ length: 8 }, () => client.post(M('ensure_patient'), { customer: c.name, date_of_birth: '1991-09-09' })));
  for (const a of answers) t.is(a.status, 200, a.text);
  const ids = new Set(answers.map((a) => a.body.message.rxpartner_patient_id));
  t.is(ids.size, 1);
  t.is(answers.filter((a) => a.body.message.created).length, 1, 'one caller created it');
  t.is(creates() - before, 1, 'one patient creation call');
  t.is(await count(`SELECT count(*)::int AS n FROM customer_partner_patients WHERE customer = $1`, [c.name]), 1);
});

test.serial('a patient the pharmacy cannot create (PATIENT_CREATION_FAILURE) is a follow-up item operations can list', async (t) => {
  const c = await buildCustomer({ customer_name: 'Frank Fail' });
  const res = await opsClient.post(M('ensure_patient'), { customer: c.name, date_of_birth: '1960-10-10' });
  t.is(res.status, 417, res.text);
  t.regex(serverMessages(res.body)[0], new RegExp(`could not create the patient of Customer ${c.name} \\(PATIENT_CREATION_FAILURE`));
  const list = await opsClient.get(M('list_follow_ups'));
  t.is(list.status, 200, list.text);
  const mine = (list.body.message as { customer: string; kind: string; status: string; detail: string }[]).filter((f) => f.customer === c.name);
  t.is(mine.length, 1);
  t.like(mine[0], { kind: 'patient_creation_failure', status: 'open' });
  t.false(mine[0].detail.includes('1960-10-10'));
  // the partner's PATIENT_CREATION_FAILURE webhook for the same patient adds no second item
  await eventually(
    async () =>
      (await db.query(`SELECT outcome FROM partner_events WHERE event_key LIKE 'PATIENT_CREATION_FAILURE:%' AND outcome LIKE '%${c.name}%'`)).rows.length === 1,
    { message: 'the webhook was applied to the Customer’s patient', timeoutMs: 45_000 },
  );
  t.is(await count(`SELECT count(*)::int AS n FROM partner_follow_ups WHERE customer = $1`, [c.name]), 1);
  // asked again: the same failed patient, still one open item
  t.is((await opsClient.post(M('ensure_patient'), { customer: c.name, date_of_birth: '1960-10-10' })).status, 417);
  t.is(await count(`SELECT count(*)::int AS n FROM partner_follow_ups WHERE customer = $1 AND status = 'open'`, [c.name]), 1);

  // operations work it from the CLI: listed, then resolved
  const id = (await db.query(`SELECT id::int FROM partner_follow_ups WHERE customer = $1`, [c.name])).rows[0].id as number;
  const listed = await svcBeside(app, ['partner', 'follow-ups']);
  t.is(listed.code, 0, listed.stderr);
  t.regex(listed.stdout, new RegExp(`^${id}\\s+\\S+\\s+rxpartner\\s+patient_creation_failure\\s+open\\s+${c.name}\\s`, 'm'));
  const resolved = await svcBeside(app, ['partner', 'follow-ups', '--resolve', String(id)]);
  t.is(resolved.code, 0, resolved.stderr);
  t.is(resolved.stdout, `follow-up ${id}: resolved`);
  const open = (await opsClient.get(M('list_follow_ups'))).body.message as { customer: string }[];
  t.false(open.some((f) => f.customer === c.name));
  t.is(
    (await db.query(`SELECT action FROM audit_events WHERE object_type = 'Partner Follow-up' AND object_name = $1`, [String(id)])).rows[0]?.action,
    'resolve',
  );
});
