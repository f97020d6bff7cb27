/**
 * A bulkhead per partner in the worker (issue 24, item 14): with otcpartner hung (its calls held
 * unanswered by the simulator, far longer than the test lasts), a peptidepartner order submitted
 * after six otcpartner ones is still sent while the otcpartner calls are in flight: the hung partner
 * holds only its share of the worker's slots, and its due rows do not keep the others' from being
 * claimed. Once otcpartner answers again, each of its orders is created there exactly once.
 */
import test from 'ava';
import type pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { eventually } from '../helpers/eventually.js';
import type { OutboxWorker } from '../../src/jobs/outbox-worker.js';
import { closePartnerAgent } from '../../src/fulfilment/partner-http.js';
import { startOtcpartnerSimulator, startPeptidepartnerSimulator, type RunningSimulator } from '../../src/simulators/index.js';
import { configureOtc, OTC, startWorker } from './helpers.js';
import { configurePeptide, mappedOrder, partnerOrderWhen, PEPTIDE } from '../partners/shipper/shipper.helpers.js';

let app: TestApp;
let db: pg.Client;
let otc: RunningSimulator;
let peptide: RunningSimulator;
let worker: OutboxWorker | undefined;

test.before(async () => {
  // four slots (one per partner at the default share); a partner call may wait two minutes, so the
  // hung calls are still in flight whatever the machine's speed
  app = await startTestApp({ env: { SVC_WORKER_CONCURRENCY: '4', SVC_WORKER_PARTNER_SHARE: '0.25', SVC_PARTNER_TIMEOUT_MS: '120000' } });
  db = await pgClient(app.dbUrl);
  otc = await startOtcpartnerSimulator({ credentials: OTC });
  peptide = await startPeptidepartnerSimulator({ credentials: PEPTIDE });
  await configureOtc(otc.url);
  await configurePeptide(peptide.url);
});
test.after.always(async () => {
  otc?.hang(false);
  await worker?.stop(2000);
  await otc?.close();
  await peptide?.close();
  await closePartnerAgent();
  await db?.end();
  await app?.stop();
});

test.serial('one partner hung: another partner’s order is sent while the hung calls are in flight; the hung orders go once it recovers', async (t) => {
  otc.hang(true);
  const hung: string[] = [];
  for (let i = 0; i < 6; i++) hung.push(await mappedOrder({ otc_sku: `OTC-HUNG-${i}` }, 1));
  worker = await startWorker(app);
  await eventually(() => otc.held() > 0, { timeoutMs: 30_000, message: 'otcpartner holds a call' });
  const other = await mappedOrder({ peptide_partner_product_id: 'VAR-BPC-157' }, 1);
  const sent = await partnerOrderWhen(db, other, (p) => p.status === 'created', `${other} created at peptidepartner`, 30_000);
  t.truthy(sent.partner_reference);
  t.true(otc.held() > 0, 'the otcpartner calls were still unanswered when the peptidepartner order was created');
  t.true(worker.laneLoad('otcpartner') <= worker.laneCap, 'otcpartner never held more than its share');
  t.is(otc.orders().length, 0, 'nothing created at the hung partner yet');

  otc.hang(false);
  for (const name of hung) await partnerOrderWhen(db, name, (p) => p.status === 'created', `${name} created at otcpartner`, 60_000);
  for (const name of hung) t.is(otc.orders().filter((o) => o.dedupeKey === name).length, 1, `${name} created once at otcpartner`);
});
