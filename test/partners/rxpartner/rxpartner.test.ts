/**
 * rxpartner end to end against its simulator, with a real worker: a 502 from the token endpoint is
 * the spec's "wrong OAuth body" (awaiting configuration); the patient first (once per customer and
 * patient), then transmitEScript for prescriptions and otc/transfer for the rest, the Sales Order
 * name as externalOrderId; the token is shared by every process (one token request for three
 * processes), refreshed 30 s before it expires, dropped once on a 401; patient data goes to the
 * partner only, and its read is audited.
 */
import test from 'ava';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type pg from 'pg';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { pgClient } from '../../helpers/db.js';
import { eventually } from '../../helpers/eventually.js';
import { projectRoot } from '../../../src/config/index.js';
import type { OutboxWorker } from '../../../src/jobs/outbox-worker.js';
import type { RunningSimulator } from '../../../src/simulators/index.js';
import { closePartnerAgent } from '../../../src/fulfilment/partner-http.js';
import { testPartnerCredentials } from '../../../src/fulfilment/credentials/credentials-test.service.js';
import { rxpartnerConnector } from '../../../src/partners/rxpartner/rxpartner.connector.js';
import { tokenOf } from '../../../src/partners/rxpartner/rxpartner.client.js';
import type { ConnectorContext, PartnerOrderInput } from '../../../src/fulfilment/connector.js';
import { ops, partnerOrdersOf, startWorker, type PartnerOrderDb } from '../../fulfilment/helpers.js';
import { configureRx, DOCTOR_NPI, otcOnlyOrder, RX, rxFields, rxOrder, rxSimulator, tokenRequests } from './rx-helpers.js';

const run = promisify(execFile);
let app: TestApp;
let db: pg.Client;
let sim: RunningSimulator;
let worker: OutboxWorker;

test.before(async () => {
  app = await startTestApp({ config: { webhook: { timeoutMs: 10_000, allowPrivateTargets: true, retryTimeScale: 0.01 } } });
  db = await pgClient(app.dbUrl);
  sim = await rxSimulator(app);
  worker = await startWorker(app);
});
test.after.always(async () => {
  await worker?.stop(2000);
  await sim?.close();
  await closePartnerAgent();
  await db?.end();
  await app?.stop();
});

async function rxPartnerOrder(name: string, done: (p: PartnerOrderDb) => boolean, message: string): Promise<PartnerOrderDb> {
  return eventually(
    async () => {
      const p = (await partnerOrdersOf(db, name)).find((x) => x.partner === 'rxpartner');
      return p && done(p) ? p : undefined;
    },
    { message },
  );
}
const created = (name: string) => rxPartnerOrder(name, (p) => p.status === 'created', `${name} created at rxpartner`);
const bodiesOf = (name: string) => sim.orders().filter((o) => o.dedupeKey === name || o.dedupeKey === `${name}/otc`);
const calls = async (name: string) =>
  (await db.query(`SELECT endpoint, http_status FROM partner_calls WHERE sales_order = $1 ORDER BY id`, [name])).rows.map(
    (r) => `${r.endpoint} ${r.http_status}`,
  );

test.serial(
  'a 502 from the token endpoint is the wrong OAuth body: awaiting configuration with the spec’s words; setting the credentials re-drives it',
  async (t) => {
    await configureRx(sim.url);
    sim.failNext(1, { status: 502, path: '/v1/oauth2/token' });
    const name = await otcOnlyOrder();
    const waiting = await rxPartnerOrder(name, (p) => p.status === 'awaiting_configuration', 'awaiting configuration after 502');
    t.is(waiting.last_error, 'rxpartner answered 502: usually a wrong OAuth body format');
    t.deepEqual(await calls(name), ['POST /v1/oauth2/token 502']);
    t.is((await db.query(`SELECT count(*)::int AS n FROM partner_tokens`)).rows[0].n, 0, 'no token cached');
    // the attempt is over (its outbox row set aside) before the credentials are set again
    await eventually(
      async () => (await db.query(`SELECT status FROM outbox WHERE kind = 'partner_order' AND target = $1`, [name])).rows[0].status === 'failed',
      { message: 'attempt recorded' },
    );
    await configureRx(sim.url);
    await created(name);
    t.deepEqual(await calls(name), ['POST /v1/oauth2/token 502', 'POST /v1/oauth2/token 200', 'POST /v1/otc/transfer 201']);
    const [order] = bodiesOf(name);
    t.like(order.body, {
      externalOrderId: name,
      items: [{ sku: 'RX-OTC-GAUZE', quantity: 3 }],
      shippingAddress: { address1: '12 Harbor Street', city: 'Newark', state: 'NJ', zip: '07102', country: 'US' },
    });
    t.false('patientId' in (order.body as object), 'an order without a patient sends none');
    t.like(await rxFields(db, name), { rxpartner_reference_id: order.ref, rxpartner_status: 'Received' });
  },
);

test.serial(
  '503A order: the patient first (once per customer and patient), then transmitEScript and otc/transfer; audited; fields and shipment row',
  async (t) => {
    const patient = { first: 'Zelda', last: 'Quixote-Rx', dob: '1979-03-14' };
    const name = await rxOrder(patient, { otc: true });
    const p = await created(name);
    const parts = bodiesOf(name);
    const escript = parts.find((o) => o.dedupeKey === name)!;
    const transfer = parts.find((o) => o.dedupeKey === `${name}/otc`)!;
    const patients = (await (await fetch(`${sim.url}/_sim/patients`)).json()) as {
      patients: { patientId: string; firstName: string; lastName: string; dateOfBirth: string; externalId: string }[];
    };
    const mine = patients.patients.filter((x) => x.lastName === patient.last);
    t.is(mine.length, 1);
    t.like(mine[0], { firstName: patient.first, dateOfBirth: patient.dob });
    t.regex(mine[0].externalId, /^svc-[0-9a-f]{40}$/, 'the patient’s external id tells nothing about the patient');
    t.like(escript.body, {
      externalOrderId: name,
      practiceId: RX.practiceId,
      patientId: mine[0].patientId,
      prescriber: { npi: DOCTOR_NPI },
      items: [{ drugDescription: 'Testosterone cypionate 200 mg/mL, 10 mL vial', quantity: 1 }],
    });
    t.like(transfer.body, { externalOrderId: `${name}/otc`, patientId: mine[0].patientId, items: [{ sku: 'RX-OTC-SYRINGES-10', quantity: 2 }] });
    t.is(p.partner_reference, escript.ref);
    t.like(await rxFields(db, name), { rxpartner_reference_id: `${escript.ref} ${transfer.ref}`, rxpartner_status: 'Received' });
    const registry = (
      await db.query(`SELECT customer, partner, partner_patient_id, status, sales_order FROM customer_partner_patients WHERE partner_patient_id = $1`, [
        mine[0].patientId,
      ])
    ).rows;
    t.deepEqual(registry, [{ customer: 'CUST-0001', partner: 'rxpartner', partner_patient_id: mine[0].patientId, status: 'active', sales_order: name }]);
    const audit = (
      await db.query(`SELECT actor_id, action, fields, detail FROM audit_events WHERE object_name = $1 AND detail->>'purpose' = 'sent to rxpartner'`, [name])
    ).rows;
    t.is(audit.length, 1, 'the read of patient data for the partner is audited');
    t.like(audit[0], { actor_id: 'job:partner-order', action: 'read' });
    t.true(audit[0].fields.includes('checkout_patient_dob'));
    t.deepEqual((await db.query(`SELECT source, status, tracking_number FROM shipments WHERE sales_order = $1`, [name])).rows, [
      { source: 'rxpartner', status: 'Pending', tracking_number: 'Awaiting tracking' },
    ]);
    // the same patient again (other spelling of case and spaces): no second patient at the partner
    const again = await rxOrder({ first: ' zelda ', last: 'QUIXOTE-RX', dob: patient.dob });
    await created(again);
    t.deepEqual(await calls(again), ['POST /v1/prescriptions/transmitEScript 201']);
    t.like(bodiesOf(again)[0].body, { patientId: mine[0].patientId });
  },
);

test.serial('a prescription line without a patient and prescriber fails for good with the reason', async (t) => {
  const input = {
    partner: 'rxpartner',
    partnerOrderId: 1,
    salesOrder: 'SO-X',
    dedupeKey: 'SO-X',
    attempt: 1,
    patient: null,
    prescriberNpi: null,
    order: {
      name: 'SO-X',
      customer: 'CUST-0001',
      customer_name: 'x',
      email: null,
      transaction_date: '2026-11-22',
      currency: 'USD',
      grand_total: 1,
      is_503a: false,
    },
    shipTo: {
      name: 'x',
      company: null,
      street1: 'x',
      street2: null,
      city: 'x',
      state: null,
      postalCode: null,
      country: 'US',
      countryCode: 'US',
      phone: null,
      email: null,
    },
    lines: [{ idx: 2, item_code: 'RX-ITEM', item_name: 'x', qty: 1, uom: 'Nos', rate: 1, amount: 1, partner_sku: 'Drug', prescription: true }],
  } satisfies PartnerOrderInput;
  const outcome = await rxpartnerConnector.createOrder(input, {} as ConnectorContext);
  t.deepEqual(outcome, {
    kind: 'failed',
    permanent: true,
    reason: 'line 2 (RX-ITEM) is a prescription: only a 503A order (patient and checkout_npi_number) can be sent to rxpartner as an e-prescription',
  });
});

test.serial('token answers: accessToken | access_token | token, expiresIn | expires_in, else the JWT exp', (t) => {
  const now = Date.UTC(2026, 10, 23);
  t.deepEqual(tokenOf({ accessToken: 'a', expiresIn: 3600 }, now), { token: 'a', expiresAt: new Date(now + 3_600_000) });
  t.deepEqual(tokenOf({ access_token: 'b', expires_in: '60' }, now), { token: 'b', expiresAt: new Date(now + 60_000) });
  const jwt = `x.${Buffer.from(JSON.stringify({ exp: now / 1000 + 90 })).toString('base64url')}.y`;
  t.deepEqual(tokenOf({ token: jwt }, now), { token: jwt, expiresAt: new Date(now + 90_000) });
  t.is(tokenOf({ tokenType: 'Bearer' }, now), undefined);
});

test.serial('the token is kept encrypted and refreshed 30 s before it expires, not earlier', async (t) => {
  const rows = (await db.query(`SELECT token_enc, expires_at FROM partner_tokens WHERE partner = 'rxpartner'`)).rows;
  t.is(rows.length, 1);
  t.regex(rows[0].token_enc, /^v1:/);
  t.false(rows[0].token_enc.includes('eyJ'), 'no JWT in clear');
  const before = tokenRequests(sim).length;
  // time moved in the token table, not waited (and below): the refresh margin is the subject
  await db.query(`UPDATE partner_tokens SET expires_at = now() + interval '45 seconds'`);
  await created(await otcOnlyOrder());
  t.is(tokenRequests(sim).length, before, '45 s left: the token is still used');
  await db.query(`UPDATE partner_tokens SET expires_at = now() + interval '25 seconds'`);
  await created(await otcOnlyOrder());
  t.is(tokenRequests(sim).length, before + 1, '25 s left: refreshed first');
  const expires = (await db.query(`SELECT extract(epoch FROM expires_at - now())::int AS s FROM partner_tokens`)).rows[0].s;
  t.true(expires > 3500, String(expires));
});

test.serial('a 401 on a call drops the cached token once and asks again with a fresh one', async (t) => {
  await fetch(`${sim.url}/_sim/tokens/revoke`, { method: 'POST' });
  const before = tokenRequests(sim).length;
  const name = await otcOnlyOrder();
  await created(name);
  t.deepEqual(await calls(name), ['POST /v1/otc/transfer 401', 'POST /v1/oauth2/token 200', 'POST /v1/otc/transfer 201']);
  t.is(tokenRequests(sim).length, before + 1);
});

test.serial('the token is shared across processes: two other processes and this one, 15 calls, one token request', async (t) => {
  // no cached token, as at first start: the shared token row is the subject
  await db.query(`DELETE FROM partner_tokens`);
  const before = tokenRequests(sim).length;
  const child = () =>
    run(process.execPath, [join(projectRoot, 'dist', 'test', 'partners', 'rxpartner', 'rx-token-child.js'), '5'], {
      env: { ...process.env, DATABASE_URL: app.dbUrl, SVC_ENV: 'test' },
    });
  const [a, b, here] = await Promise.all([child(), child(), Promise.all(Array.from({ length: 5 }, () => testPartnerCredentials(ops, 'rxpartner')))]);
  t.deepEqual(JSON.parse(a.stdout.trim()).ok, 5, a.stdout);
  t.deepEqual(JSON.parse(b.stdout.trim()).ok, 5, b.stdout);
  t.true(
    here.every((r) => r.ok),
    JSON.stringify(here[0]),
  );
  t.regex(here[0].detail, /authenticated: a token was issued and the partner answered 404/);
  t.is(tokenRequests(sim).length, before + 1, 'one process fetched the token; the others used it');
});

test.serial('patient data reaches the partner only: not the call log, the events, the outbox or the service log', async (t) => {
  const values = ['Zelda', 'Quixote-Rx', 'QUIXOTE-RX', '1979-03-14'];
  const tables = [
    (await db.query(`SELECT row_to_json(c)::text AS j FROM partner_calls c`)).rows,
    (await db.query(`SELECT row_to_json(e)::text AS j FROM partner_events e`)).rows,
    (await db.query(`SELECT row_to_json(o)::text AS j FROM outbox o WHERE kind LIKE 'partner%' OR kind = 'fulfilment_route'`)).rows,
    (await db.query(`SELECT row_to_json(p)::text AS j FROM partner_orders p`)).rows,
    (await db.query(`SELECT row_to_json(p)::text AS j FROM customer_partner_patients p`)).rows,
  ]
    .flat()
    .map((r) => r.j as string);
  t.true(tables.length > 10);
  for (const v of values) {
    t.false(
      tables.some((j) => j.includes(v)),
      `${v} stored outside the order`,
    );
    t.false(
      app.logs.some((l) => l.includes(v)),
      `${v} in the service log`,
    );
  }
  t.false(tables.some((j) => j.includes(RX.clientSecret)) || app.logs.some((l) => l.includes(RX.clientSecret)), 'nor the client secret');
});
