/**
 * What a submit of an order must leave in the outbox, checked the same way whatever path submitted
 * it (the paths are in submit-paths.ts): order.new per vendor carrying exactly that vendor's lines,
 * one fulfilment routing row with each line's recorded route, the confirmation mail; all written by
 * the transaction that submitted the order. And a fault to inject between an order's write and its
 * outbox rows: a trigger on the outbox that raises for one kind of row of an armed item, after the
 * order row, its lines and its bins were written, so the submit must leave nothing at all (issue 30).
 */
import type { ExecutionContext } from 'ava';
import type pg from 'pg';
import type { Json } from './http.js';

/** The outbox rows a submit writes, by the kind or topic the fault matches. */
export const SUBMIT_ROW_KINDS = ['order.new', 'order.route', 'email'] as const;
export type SubmitRowKind = (typeof SUBMIT_ROW_KINDS)[number];

interface SeenLine {
  idx: number;
  item_code: string;
  vendor: string | null;
  route: string | null;
  qty: number;
  reserved: number;
}

export interface SeenOutboxRow {
  kind: string;
  topic: string | null;
  target: string | null;
  payload: Json;
  /** the transaction that wrote the row */
  xmin: string;
}

/**
 * Checks the submitted order `name` and its outbox rows; `expected` (item code and qty per line, in
 * order) guards that the path submitted what the test asked for. Answers the rows.
 */
export async function expectSubmitOutbox(
  t: ExecutionContext,
  db: pg.Client,
  name: string,
  expected: { item_code: string; qty: number }[],
): Promise<SeenOutboxRow[]> {
  const head = (await db.query(`SELECT docstatus, status, xmin::text AS xmin FROM sales_orders WHERE name = $1`, [name])).rows[0];
  t.like(head, { docstatus: 1, status: 'To Deliver and Bill' }, `${name} is submitted`);
  const lines = (
    await db.query<SeenLine>(
      `SELECT idx, item_code, vendor, fulfilment_partner AS route, qty::float8 AS qty, reserved_qty::float8 AS reserved
         FROM sales_order_items WHERE parent = $1 ORDER BY idx`,
      [name],
    )
  ).rows;
  t.deepEqual(
    lines.map((l) => ({ item_code: l.item_code, qty: l.qty, reserved: l.reserved, routed: l.route !== null })),
    expected.map((e) => ({ item_code: e.item_code, qty: e.qty, reserved: e.qty, routed: true })),
    'the lines asked for, each reserved and its route recorded',
  );
  const rows = (
    await db.query<SeenOutboxRow>(
      `SELECT kind, topic, target, payload, xmin::text AS xmin FROM outbox
        WHERE (kind = 'vendor_webhook' AND payload->'data'->>'sales_order' = $1) OR (kind = 'fulfilment_route' AND target = $1)
           OR (kind = 'email' AND payload->>'subject' = 'Sales Order ' || $1 || ' confirmed')
        ORDER BY id`,
      [name],
    )
  ).rows;
  expectVendorEvents(t, name, lines, rows);
  t.deepEqual(
    rows.filter((r) => r.kind === 'fulfilment_route').map((r) => [r.topic, r.payload]),
    [['order.route', { sales_order: name, lines: lines.map((l) => ({ idx: l.idx, item_code: l.item_code, route: l.route })) }]],
    'one routing row with each line and its recorded route',
  );
  t.deepEqual(
    rows.filter((r) => r.kind === 'email').map((r) => [r.topic, /^[^@\s,]+@[^@\s,]+$/.test(String(r.target))]),
    [['order-confirmation', true]],
    'the confirmation mail, to an address',
  );
  // committed together: the order row, its stock ledger rows and its outbox rows carry one writing
  // transaction id (a row written after the submit's commit, in a transaction of its own, has another)
  const ledger = (await db.query<{ xmin: string }>(`SELECT xmin::text AS xmin FROM stock_ledger_entries WHERE voucher_no = $1`, [name])).rows;
  t.true(ledger.length > 0, 'the reservation is in the stock ledger');
  t.deepEqual(
    [...new Set([head.xmin, ...ledger.map((l) => l.xmin), ...rows.map((r) => r.xmin)])],
    [head.xmin],
    'the order, its stock ledger rows and its outbox rows were written by one transaction',
  );
  return rows;
}

/** order.new: one per vendor of the lines routed to their vendor, with exactly that vendor's lines; no other vendor row. */
function expectVendorEvents(t: ExecutionContext, name: string, lines: SeenLine[], rows: SeenOutboxRow[]): void {
  const vendorLines = lines.filter((l) => l.route === 'vendor' && l.vendor !== null);
  const vendors = [...new Set(vendorLines.map((l) => l.vendor!))].sort();
  const webhooks = rows.filter((r) => r.kind === 'vendor_webhook').sort((a, b) => String(a.target).localeCompare(String(b.target)));
  t.deepEqual(
    webhooks.map((w) => [w.topic, w.target]),
    vendors.map((v) => ['order.new', v]),
    'one order.new per vendor of the vendor-routed lines',
  );
  for (const w of webhooks) {
    t.like(w.payload, { event: 'order.new', vendor: w.target });
    t.like(w.payload.data, { sales_order: name, docstatus: 1, status: 'submitted' });
    t.deepEqual(
      (w.payload.data.items as Json[]).map((i) => [i.medgrid_item_code, i.qty]),
      vendorLines.filter((l) => l.vendor === w.target).map((l) => [l.item_code, l.qty]),
      `order.new to ${String(w.target)} carries its lines and no other`,
    );
  }
}

/** The word boundary a code is matched with (codes such as T-1-1 must not match T-1-12). */
const codePattern = (code: string) => `(^|[^A-Za-z0-9_-])${code.replace(/[^A-Za-z0-9_-]/g, '\\$&')}($|[^A-Za-z0-9_-])`;

/**
 * Installs the fault trigger in the test's database (once; harmless again): a BEFORE INSERT trigger on
 * the outbox that raises for a row of an armed kind (or topic) whose payload names an armed item code.
 * It changes nothing for rows not armed.
 */
export async function installOutboxFault(db: pg.Client): Promise<void> {
  await db.query(`CREATE TABLE IF NOT EXISTS test_outbox_faults (pattern text NOT NULL, kind text NOT NULL)`);
  await db.query(`CREATE OR REPLACE FUNCTION test_outbox_fault() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM test_outbox_faults f WHERE f.kind IN (NEW.kind, NEW.topic) AND NEW.payload::text ~ f.pattern) THEN
        RAISE EXCEPTION 'injected fault: the % outbox row of an armed item', COALESCE(NEW.topic, NEW.kind);
      END IF;
      RETURN NEW;
    END $$`);
  await db.query(`CREATE OR REPLACE TRIGGER test_outbox_fault BEFORE INSERT ON outbox FOR EACH ROW EXECUTE FUNCTION test_outbox_fault()`);
}

/** Runs `work` with the fault armed for `kind` rows naming any of `codes`, disarmed afterwards whatever happens. */
export async function withOutboxFault<T>(db: pg.Client, codes: string[], kind: SubmitRowKind, work: () => Promise<T>): Promise<T> {
  const patterns = codes.map(codePattern);
  // a test-only table, the fault trigger's list (its DELETE below too): no application table
  await db.query(`INSERT INTO test_outbox_faults (pattern, kind) SELECT unnest($1::text[]), $2`, [patterns, kind]);
  try {
    return await work();
  } finally {
    await db.query(`DELETE FROM test_outbox_faults WHERE pattern = ANY($1::text[])`, [patterns]);
  }
}

/** The newest outbox row's id now (rows written later have larger ids). */
export async function outboxMark(db: pg.Client): Promise<number> {
  return Number((await db.query(`SELECT COALESCE(max(id), 0) AS id FROM outbox`)).rows[0].id);
}

/**
 * Nothing of a submit of these items stayed: no order of them submitted or holding stock, no bin
 * reserved, no reservation in the stock ledger, no outbox row naming them written after `mark`
 * (outboxMark before the submit: the vendor's product rows of the items come before it).
 */
export async function expectNothingSubmitted(t: ExecutionContext, db: pg.Client, codes: string[], mark: number, what: string): Promise<void> {
  const patterns = codes.map(codePattern);
  const orders = await db.query(
    `SELECT DISTINCT so.name, so.docstatus FROM sales_orders so JOIN sales_order_items soi ON soi.parent = so.name
      WHERE soi.item_code = ANY($1) AND (so.docstatus <> 0 OR soi.reserved_qty <> 0)`,
    [codes],
  );
  t.deepEqual(orders.rows, [], `${what}: no order of these items is submitted or holds stock`);
  const bins = await db.query(`SELECT item_code, warehouse FROM bins WHERE item_code = ANY($1) AND reserved_qty <> 0`, [codes]);
  t.deepEqual(bins.rows, [], `${what}: no stock reserved`);
  const ledger = await db.query(`SELECT item_code, voucher_no FROM stock_ledger_entries WHERE item_code = ANY($1) AND voucher_no IS NOT NULL`, [codes]);
  t.deepEqual(ledger.rows, [], `${what}: no reservation in the stock ledger`);
  const outbox = await db.query(`SELECT kind, topic, target FROM outbox WHERE id > $2 AND payload::text ~ ANY($1::text[])`, [patterns, mark]);
  t.deepEqual(outbox.rows, [], `${what}: no outbox row`);
}
