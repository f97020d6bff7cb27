/**
 * Sales Order drafts: create, update, delete. Submit and cancel live in order-submit.ts.
 * Totals are computed here from today's list rates; a draft holds no stock (submit reserves it).
 */
import type { Actor } from '../auth/actor.js';
import { userIdOf } from '../auth/actor.js';
import { creditedSalesPersonOf } from '../auth/policy/orders.rules.js';
import { authorize } from '../auth/policy/index.js';
import { execute, selectOne, selectRows, withTransaction, type Tx } from '../db/sequelize.js';
import { recordAudit } from '../audit/audit.service.js';
import { BusinessRuleError, InputError } from '../shared/errors.js';
import { attachFile, detachFiles } from '../files/files.service.js';
import { prepareOrder, type PreparedOrder } from './order-prepare.js';
import { columnsOf, once } from '../db/sql-names.js';
import { attributeOf, orderSql } from './order-sql.js';
import { SalesOrder } from './sales-order.model.js';
import { loadVisibleOrder, orderDoc } from './order-doc.js';
import { decryptPatientFields, encryptPatientFields } from './phi.js';
import { cancelOrder } from './order-cancel.js';
import { submitOrder } from './order-submit.js';
import { CONFIRM_FIELDS, DOCTOR_FIELDS, FIELDS_503A, PATIENT_FIELDS, parseOrderBody } from './order.schemas.js';

export interface OrderSummary {
  name: string;
  docstatus: number;
  status: string;
  customer: string;
  grand_total: number;
  transaction_date: string;
}

const int01 = (v: unknown) => (v === undefined || v === null || v === '' ? null : v === 1 || v === true || v === '1' || v === 'true' ? 1 : 0);

function headerValues(actor: Actor, p: PreparedOrder): Record<string, unknown> {
  const i = p.input;
  const values: Record<string, unknown> = {
    customer: p.customer.name,
    territory: p.customer.territory,
    transaction_date: p.transaction_date,
    delivery_date: i.delivery_date || null,
    price_list: p.price_list,
    currency: p.currency,
    shipping_address_name: i.shipping_address_name,
    shipping_method: i.shipping_method || null,
    grand_total: p.grand_total,
    total_qty: p.total_qty,
    is_503a: p.is503a,
  };
  for (const f of DOCTOR_FIELDS) values[f] = p.is503a && i[f] ? String(i[f]) : null;
  for (const f of CONFIRM_FIELDS) values[f] = p.is503a ? int01(i[f]) : null;
  values.checkout_dea_license_file = p.files.checkout_dea_license_file ?? null;
  values.checkout_prescription_file = p.files.checkout_prescription_file ?? null;
  Object.assign(values, p.is503a ? encryptPatientFields(i) : Object.fromEntries(PATIENT_FIELDS.map((f) => [f, null])));
  void actor;
  return values;
}

/** The lines' INSERT … SELECT from `source` (the new order's name, read from `from` when given) and the JSON lines bound at `param`. */
const linesInsert = (source: string, param: string, from = '') =>
  orderSql(`INSERT INTO {@soi} ({soi:parent}, {soi:idx}, {soi:itemCode}, {soi:itemName}, {soi:qty}, {soi:uom}, {soi:rate}, {soi:amount}, {soi:warehouse}, {soi:vendor})
     SELECT ${source}, l.idx, l.item_code, l.item_name, l.qty, l.uom, l.rate, l.amount, l.warehouse, l.vendor
       FROM ${from}jsonb_to_recordset(${param}::jsonb) AS l(idx int, item_code text, item_name text, qty numeric, uom text, rate numeric, amount numeric, warehouse text, vendor text)`);

// Draft edits (cold): the statements of updateDraft and updateOrder.
const draftSql = once(() => ({
  lines: orderSql(`SELECT {soi.itemCode} AS item_code, {soi.qty} AS qty, {soi.warehouse} AS warehouse FROM {soi} WHERE {soi.parent} = $1 ORDER BY {soi.idx}`),
  dropLines: orderSql(`DELETE FROM {@soi} WHERE {soi:parent} = $1`),
  insertLines: linesInsert('$1', '$2'),
  docstatus: orderSql(`SELECT {so.docstatus} AS docstatus FROM {so} WHERE {so.name} = $1`),
  deleteDraft: orderSql(`DELETE FROM {@so} WHERE {so:name} = $1 AND {so:docstatus} = 0`),
}));

async function insertLines(name: string, p: PreparedOrder, transaction: Tx): Promise<void> {
  await execute(draftSql().insertLines, [name, JSON.stringify(p.lines)], { transaction });
}

/** The column of a header value (headerValues keys are wire field names). */
const columnOf = (field: string) => (columnsOf(SalesOrder) as Record<string, string>)[attributeOf(field)];

async function afterWrite(actor: Actor, name: string, p: PreparedOrder, action: string, transaction: Tx): Promise<void> {
  for (const [field, file] of Object.entries(p.files)) await attachFile(transaction, file, 'Sales Order', name, field);
  if (p.is503a) await recordAudit(transaction, actor, { action, object_type: 'Sales Order', object_name: name, fields: [...PATIENT_FIELDS] });
}

/** The draft header and its lines in ONE statement, for the header columns `cols` (wire field names). */
function orderInsertSql(cols: string[]): string {
  const n = cols.length;
  return orderSql(`WITH so AS (
       INSERT INTO {@so} ({so:name}, ${cols.map(columnOf).join(', ')}, {so:ownerUser}, {so:ownerEmail}, {so:createdBySalesPerson})
       SELECT 'SAL-ORD-' || to_char(CURRENT_DATE, 'YYYY') || '-' || lpad(seq.v, GREATEST(5, length(seq.v)), '0'),
               ${cols.map((_, k) => `$${k + 1}`).join(', ')}, $${n + 1}, $${n + 2}, $${n + 3}
         FROM (SELECT nextval('sales_order_seq')::text AS v) seq
       RETURNING {so:name} AS name, {so:docstatus} AS docstatus, {so:status} AS status, {so:customer} AS customer, {so:grandTotal}::float8 AS grand_total,
                 {so:transactionDate} AS transaction_date),
     lines AS (${linesInsert('so.name', `$${n + 4}`, 'so, ')})
     SELECT * FROM so`);
}

/** Prepared order inserts, by header column list (in practice one). */
const inserts = new Map<string, string>();

/**
 * The draft header and its lines in ONE statement (the lines' INSERT reads the new name from the
 * header's). Names follow Frappe's SAL-ORD-.YYYY.-.##### series: at least five digits, more past
 * 99999 (a plain lpad to 5 would cut 100000 to 10000 and collide).
 */
async function insertOrder(actor: Actor, p: PreparedOrder, transaction?: Tx): Promise<OrderSummary> {
  const values = headerValues(actor, p);
  const cols = Object.keys(values);
  // the column list is the same on every call: one prepared statement (a second list gets its own)
  const key = cols.join(',');
  let stmt = inserts.get(key);
  if (!stmt) inserts.set(key, (stmt = orderInsertSql(cols)));
  const [row] = await selectRows<OrderSummary>(
    stmt,
    [...Object.values(values), userIdOf(actor), actor.email ?? actor.id, creditedSalesPersonOf(actor), JSON.stringify(p.lines)],
    { transaction },
  );
  return row;
}

/**
 * POST /api/resource/Sales Order: validates, prices on the server, stores a Draft. The checks only
 * read (a draft holds nothing), so a plain order is two statements and no transaction: the facts,
 * then the one INSERT of header and lines (atomic on its own). A 503A order also attaches its files
 * and writes its audit row, so those writes share a transaction with the INSERT.
 */
export async function createOrder(actor: Actor, body: Record<string, unknown>, opts: { transaction?: Tx } = {}): Promise<OrderSummary> {
  authorize(actor, 'create', 'Sales Order');
  const input = parseOrderBody(body);
  const p = await prepareOrder(actor, input, opts.transaction);
  if (!opts.transaction && !p.is503a && Object.keys(p.files).length === 0) return insertOrder(actor, p);
  return withTransaction(opts, async (transaction) => {
    const row = await insertOrder(actor, p, transaction);
    await afterWrite(actor, row.name, p, 'create', transaction);
    return row;
  });
}

/** The body of an existing draft, as a create request (patient fields decrypted in memory only). */
function draftAsBody(head: Record<string, unknown>, lines: Record<string, unknown>[]): Record<string, unknown> {
  const body: Record<string, unknown> = {
    customer: head.customer,
    transaction_date: head.transaction_date,
    delivery_date: head.delivery_date,
    price_list: head.price_list,
    currency: head.currency,
    shipping_address_name: head.shipping_address_name,
    shipping_method: head.shipping_method,
    items: lines.map((l) => ({ item_code: l.item_code, qty: Number(l.qty), warehouse: l.warehouse })), // rates re-read from the list
  };
  if (head.is_503a) {
    for (const f of FIELDS_503A) if (head[f] !== null && head[f] !== undefined) body[f] = head[f];
    Object.assign(body, decryptPatientFields(head));
  }
  return body;
}

/** PUT on a draft with fields: the merged document is validated and priced again. */
async function updateDraft(actor: Actor, name: string, patch: Record<string, unknown>, transaction: Tx): Promise<void> {
  const head = await loadVisibleOrder(actor, name, { transaction, forUpdate: true });
  authorize(actor, 'update', 'Sales Order', head);
  if (head.docstatus === 1) throw new BusinessRuleError('Cannot edit a submitted document');
  if (head.docstatus === 2) throw new BusinessRuleError('Cannot edit cancelled document');
  const lines = await execute<Record<string, unknown>>(draftSql().lines, [name], { transaction });
  const input = parseOrderBody({ ...draftAsBody(head, lines), ...patch }, { allowName: name });
  const p = await prepareOrder(actor, input, transaction);
  const values = headerValues(actor, p);
  const cols = Object.keys(values);
  await execute(
    orderSql(
      `UPDATE {@so} SET ${cols.map((c, k) => `${columnOf(c)} = $${k + 2}`).join(', ')}, {so:modified} = now(), {so:updatedAt} = now() WHERE {so:name} = $1 AND {so:docstatus} = 0`,
    ),
    [name, ...Object.values(values)],
    { transaction },
  );
  await execute(draftSql().dropLines, [name], { transaction });
  await insertLines(name, p, transaction);
  await afterWrite(actor, name, p, 'update', transaction);
}

/** PUT /api/resource/Sales Order/{name}: field changes on a draft; docstatus 1 submits, 2 cancels. */
export async function updateOrder(
  actor: Actor,
  name: string,
  body: Record<string, unknown>,
  opts: { transaction?: Tx } = {},
): Promise<Record<string, unknown>> {
  const { docstatus, doctype: _doctype, ...fields } = body;
  if (docstatus !== undefined && ![0, 1, 2, '0', '1', '2'].includes(docstatus as never)) throw new InputError('docstatus must be 0, 1 or 2');
  const target = docstatus === undefined ? undefined : Number(docstatus);
  if (Object.keys(fields).length === 0 && target === undefined) throw new InputError('Nothing to update');
  // a plain submit is atomic on its own (one write statement): no transaction round trips
  if (Object.keys(fields).length === 0 && target === 1) return submitOrder(actor, name, opts);
  return withTransaction(opts, async (transaction) => {
    if (Object.keys(fields).length > 0) await updateDraft(actor, name, fields, transaction);
    if (target === 1) return submitOrder(actor, name, { transaction });
    if (target === 2) return cancelOrder(actor, name, { transaction });
    if (target === 0) {
      const current = await selectOne<{ docstatus: number }>(draftSql().docstatus, [name], { transaction });
      if (current && current.docstatus === 1) throw new BusinessRuleError('Cannot change docstatus from 1 (Submitted) to 0 (Draft)');
      if (current && current.docstatus === 2) throw new BusinessRuleError('Cannot edit cancelled document');
    }
    return orderDoc(actor, await loadVisibleOrder(actor, name, { transaction }), { transaction });
  });
}

/** DELETE /api/resource/Sales Order/{name}: drafts only. */
export async function deleteOrder(actor: Actor, name: string, opts: { transaction?: Tx } = {}): Promise<void> {
  await withTransaction(opts, async (transaction) => {
    const head = await loadVisibleOrder(actor, name, { transaction, forUpdate: true });
    authorize(actor, 'delete', 'Sales Order', head);
    if (head.docstatus !== 0) throw new BusinessRuleError('Submitted Record cannot be deleted. You must Cancel it first.');
    await detachFiles('Sales Order', name, { transaction });
    await execute(draftSql().deleteDraft, [name], { transaction });
    if (head.is_503a) await recordAudit(transaction, actor, { action: 'delete', object_type: 'Sales Order', object_name: name, fields: [...PATIENT_FIELDS] });
  });
}
