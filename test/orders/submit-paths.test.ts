/**
 * Every path that submits an order (test/helpers/submit-paths.ts) is held to the same two checks
 * (issue 30):
 * - its outbox rows: order.new per vendor with that vendor's lines, the routing row, the mail, all
 *   written by the transaction that submitted the order;
 * - the order and its outbox rows commit together or not at all: a fault injected at the insert of
 *   one of those rows (a trigger on the outbox, after the order, its lines and its bins were written)
 *   must leave nothing of the submit: no submitted order, no reserved stock, no ledger row, no outbox row.
 * Serial: the store import reads every new store order, so one path's armed fault must not meet another's run.
 */
import test from 'ava';
import type pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { closeSubmitContext, SUBMIT_PATHS, submitContext, type SubmitContext } from '../helpers/submit-paths.js';
import { expectNothingSubmitted, expectSubmitOutbox, installOutboxFault, outboxMark, SUBMIT_ROW_KINDS, withOutboxFault } from '../helpers/submit-outbox.js';

let app: TestApp;
let db: pg.Client;
let ctx: SubmitContext;

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  ctx = await submitContext(app, db);
  await installOutboxFault(db);
});
test.after.always(async () => {
  await closeSubmitContext(ctx);
  await db?.end();
  await app?.stop();
});

for (const path of SUBMIT_PATHS) {
  test.serial(`${path.name}: order.new per vendor, the routing row and the mail, written with the order`, async (t) => {
    const lines = await path.lines();
    const outcome = await path.submit(ctx, lines);
    t.true(outcome.ok, 'submitted');
    await expectSubmitOutbox(t, db, outcome.name!, lines);
  });

  test.serial(`${path.name}: a fault at any of its outbox rows leaves nothing of the submit`, async (t) => {
    for (const kind of SUBMIT_ROW_KINDS) {
      const lines = await path.lines();
      const codes = [...new Set(lines.map((l) => l.item_code))];
      const mark = await outboxMark(db);
      const outcome = await withOutboxFault(db, codes, kind, () => path.submit(ctx, lines));
      t.false(outcome.ok, `fault at ${kind}: the submit is refused`);
      await expectNothingSubmitted(t, db, codes, mark, `fault at ${kind}`);
      if (outcome.name) {
        const { rows } = await db.query(`SELECT docstatus, status FROM sales_orders WHERE name = $1`, [outcome.name]);
        t.deepEqual(rows, [{ docstatus: 0, status: 'Draft' }], `fault at ${kind}: the draft stays a draft`);
      }
    }
  });
}
