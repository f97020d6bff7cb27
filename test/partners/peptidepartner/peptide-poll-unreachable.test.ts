/**
 * Status polls of an unreachable partner (issue 24, item 16): a peptidepartner poll that gets no
 * answer (the partner hangs past the partner timeout) never ends as a failed outbox row and never
 * touches the partner order: the order is asked again at the poll job's next tick, and once three
 * calls in a row went unanswered `svc check` names the partner unreachable; an answer clears it.
 */
import test from 'ava';
import type pg from 'pg';
import { runChecks } from '../../../src/app/check.service.js';
import { closePartnerAgent } from '../../../src/fulfilment/partner-http.js';
import { peptidePollJob } from '../../../src/partners/peptidepartner/peptide-poll.job.js';
import { runJobOnce } from '../../../src/jobs/index.js';
import type { OutboxWorker } from '../../../src/jobs/outbox-worker.js';
import { startPeptidepartnerSimulator, type RunningSimulator } from '../../../src/simulators/index.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { pgClient } from '../../helpers/db.js';
import { eventually } from '../../helpers/eventually.js';
import { startWorker } from '../../fulfilment/helpers.js';
import { configurePeptide, mappedOrder, partnerOrderWhen, PEPTIDE } from '../shipper/shipper.helpers.js';

let app: TestApp;
let db: pg.Client;
let sim: RunningSimulator;
let worker: OutboxWorker | undefined;

test.before(async () => {
  app = await startTestApp({ env: { SVC_PARTNER_TIMEOUT_MS: '1000' } });
  db = await pgClient(app.dbUrl);
  sim = await startPeptidepartnerSimulator({ credentials: PEPTIDE });
  await configurePeptide(sim.url);
  worker = await startWorker(app);
});
test.after.always(async () => {
  sim?.hang(false);
  await worker?.stop(2000);
  await sim?.close();
  await closePartnerAgent();
  await db?.end();
  await app?.stop();
});

const polls = async (name: string) =>
  (
    await db.query<{ status: string; last_error: string | null }>(
      `SELECT status, last_error FROM outbox WHERE kind = 'partner_poll' AND target = $1 ORDER BY id`,
      [name],
    )
  ).rows;

/** One tick of the poll job; resolves once its poll of `name` has ended (the nth). */
async function tick(name: string, nth: number): Promise<{ status: string; last_error: string | null }> {
  await runJobOnce(peptidePollJob);
  await db.query(`UPDATE outbox SET next_attempt_at = now() WHERE kind = 'partner_poll' AND status = 'pending'`); // the round's spread is not waited for
  return eventually(
    async () => {
      const rows = await polls(name);
      return rows.length >= nth && !['pending', 'running'].includes(rows[nth - 1].status) ? rows[nth - 1] : undefined;
    },
    { timeoutMs: 30_000, message: `poll ${nth} of ${name} ended` },
  );
}

const reachability = async () => (await runChecks(app.config)).find((f) => f.check === 'partner peptidepartner reachable');

test.serial('an unanswered poll is asked again at the next tick, never a failed row; svc check names the partner unreachable until it answers', async (t) => {
  const name = await mappedOrder({ peptide_partner_product_id: 'VAR-BPC-157' }, 1);
  await partnerOrderWhen(db, name, (p) => p.status === 'created', `${name} created at peptidepartner`);
  sim.hang(true);
  for (let nth = 1; nth <= 3; nth++) {
    const poll = await tick(name, nth); // the job's next tick picks the same order again: it was not answered
    t.is(poll.status, 'done', `poll ${nth} ends without failing`);
    t.regex(poll.last_error ?? '', /timeout.*asked again at the next poll round/);
  }
  t.is((await db.query(`SELECT count(*)::int AS n FROM outbox WHERE status = 'failed'`)).rows[0].n, 0, 'no failed outbox row');
  const po = (await db.query(`SELECT status, polled_at FROM partner_orders WHERE sales_order = $1`, [name])).rows[0];
  t.is(po.status, 'created', 'the partner order is untouched');
  t.is(po.polled_at, null, 'first in line at the next round');
  const down = await reachability();
  t.is(down?.level, 'fail');
  t.regex(down?.detail ?? '', /not reachable: the last 3 calls went unanswered/);

  sim.hang(false);
  const answered = await tick(name, 4);
  t.is(answered.status, 'done');
  t.is(answered.last_error, null);
  t.is(await reachability(), undefined, 'reachable again once it answers');
});
