/**
 * The Sales Order document as GET /api/resource answers it (Frappe's as_dict: child rows with
 * parent/parentfield/idx, docstatus, owner, creation, modified), with every partner field, and the
 * 503A fields; patient fields only for the parties allowed (canReadPatientData: the clinic's verified doctors and admins). Every read of a 503A order is audited.
 */
import type { Actor } from '../auth/actor.js';
import { selectOne, selectRows, withTransaction, type Tx } from '../db/sequelize.js';
import { recordAudit } from '../audit/audit.service.js';
import { NotFoundError } from '../shared/errors.js';
import { canReadPatientData, orderVendorOf, orderVisible, vendorSeesOrder } from '../auth/policy/orders.rules.js';
import { authorize } from '../auth/policy/index.js';
import { decryptPatientFields } from './phi.js';
import { doctorStateOf } from '../users/users.service.js';
import { DOCTOR_FIELDS, FIELDS_503A, FILE_FIELDS, CONFIRM_FIELDS, PARTNER_FIELDS, PATIENT_FIELDS } from './order.schemas.js';
import { once } from '../db/sql-names.js';
import { attributeOf, localTime, orderSql } from './order-sql.js';
import { VENDOR_HIDDEN_FIELDS, vendorTotals } from './order-view.js';

const so = (field: string) => `{so.${attributeOf(field)}}`;

/** Header columns of an order (aliases so, c; raw: patient fields still encrypted), each under its wire name; the 503A ones only `with503a`. */
function headColumns(with503a: boolean): string {
  return orderSql(`{so.name} AS name, {so.customer} AS customer, {c.customerName} AS customer_name, {so.territory} AS territory,
         {so.transactionDate} AS transaction_date, {so.deliveryDate} AS delivery_date, {so.priceList} AS price_list, {so.currency} AS currency,
         {so.shippingAddressName} AS shipping_address_name, {so.shippingMethod} AS shipping_method, {so.docstatus} AS docstatus, {so.status} AS status,
         {so.grandTotal}::float8 AS grand_total, {so.totalQty}::float8 AS total_qty, {so.is503a} AS is_503a,
         {so.ownerUser}::text AS owner_user, {so.ownerEmail} AS owner_email, {so.createdBySalesPerson} AS created_by_sales_person,
         ${localTime('{so.createdAt}')} AS creation, ${localTime('{so.modified}')} AS modified, ${localTime('{so.submittedAt}')} AS submitted_at,
         ${localTime('{so.cancelledAt}')} AS cancelled_at, ${localTime('{so.shippedAt}')} AS shipped_at, ${localTime('{so.deliveredAt}')} AS delivered_at,
         ${with503a ? `${FIELDS_503A.map((f) => `${so(f)} AS ${f}`).join(', ')},` : ''}
         ${PARTNER_FIELDS.map((f) => `${f.endsWith('_sync_date') ? localTime(so(f)) : so(f)} AS ${f}`).join(', ')}`);
}
export const orderHeadColumns = once(() => headColumns(true));
/**
 * The same without the 503A fields, for an order that is not 503A: they are null there and no
 * answer shows them (LEFT_OUT_503A), so its submit neither builds nor parses them.
 */
export const plainOrderHeadColumns = once(() => headColumns(false));
const headSql = once(() => orderSql(`SELECT ${orderHeadColumns()} FROM {so} JOIN {c} ON {c.name} = {so.customer} WHERE {so.name} = $1`));

/** Child row fields as Frappe shows them (alias soi), as [key, SQL expression]. */
const ITEM_FIELDS: [string, string][] = [
  ['name', '{soi.id}::text'],
  ['parent', '{soi.parent}'],
  ['parentfield', `'items'`],
  ['parenttype', `'Sales Order'`],
  ['doctype', `'Sales Order Item'`],
  ['idx', '{soi.idx}'],
  ['item_code', '{soi.itemCode}'],
  ['item_name', '{soi.itemName}'],
  ['qty', '{soi.qty}::float8'],
  ['uom', '{soi.uom}'],
  ['stock_uom', '{soi.uom}'],
  ['rate', '{soi.rate}::float8'],
  ['amount', '{soi.amount}::float8'],
  ['warehouse', '{soi.warehouse}'],
  ['delivered_qty', '{soi.deliveredQty}::float8'],
  ['reserved_qty', '{soi.reservedQty}::float8'],
  // who fulfils the line, recorded at submit: a partner key, `vendor` (order.new) or `marketplace` (own stock)
  ['fulfilment_partner', '{soi.fulfilmentPartner}'],
  // a partner line's progress (Queued, Awaiting configuration, Retrying, Sent, Failed); null otherwise
  ['fulfilment_status', '{soi.fulfilmentStatus}'],
];
/** The child row as SQL json_build_object arguments (the submit statement returns its lines so). */
export const orderItemJsonArgs = once(() => orderSql(ITEM_FIELDS.map(([k, e]) => `'${k}', ${e}`).join(', ')));
export const ORDER_ITEM_KEYS = ITEM_FIELDS.map(([k]) => k);

const docSql = once(() => ({
  head: headSql(),
  headForUpdate: `${headSql()} FOR UPDATE OF so`,
  vendorLine: orderSql(`SELECT 1 FROM {soi} WHERE {soi.parent} = $1 AND {soi.vendor} = $2 LIMIT 1`),
  items: orderSql(`SELECT ${ITEM_FIELDS.map(([k, e]) => `${e} AS ${k}`).join(', ')}
       FROM {soi} WHERE {soi.parent} = $1 AND ($2::text IS NULL OR {soi.vendor} = $2) ORDER BY {soi.idx}`),
}));

export type OrderHead = Record<string, unknown> & {
  name: string;
  customer: string;
  owner_user: string | null;
  docstatus: number;
  is_503a: boolean;
  territory: string | null;
};

/** Loads an order the actor may see (404 otherwise). */
export async function loadVisibleOrder(actor: Actor, name: string, opts: { transaction?: Tx; forUpdate?: boolean } = {}): Promise<OrderHead> {
  const head = await selectOne<OrderHead>(opts.forUpdate ? docSql().headForUpdate : docSql().head, [name], opts);
  if (!head) throw new NotFoundError(`Sales Order ${name} not found`);
  const vendor = orderVendorOf(actor);
  const visible =
    vendor === null
      ? orderVisible(actor, head)
      : await vendorSeesOrder(vendor, head, async () => Boolean(await selectOne(docSql().vendorLine, [name, vendor], opts)));
  if (!visible) throw new NotFoundError(`Sales Order ${name} not found`);
  return head;
}

/** Child rows as Frappe shows them; a vendor sees only its own lines. */
async function orderItems(name: string, vendor: string | null, opts: { transaction?: Tx }) {
  return selectRows<Record<string, unknown>>(docSql().items, [name, vendor], opts);
}

/** Head columns never answered as they are (the owner is answered as `owner`), and the patient fields (decrypted below for the parties allowed). */
const LEFT_OUT = new Set<string>(['owner_user', 'owner_email', 'created_by_sales_person', ...PATIENT_FIELDS]);
/** … and, on an order that is not 503A or for a vendor, the other 503A fields. */
const LEFT_OUT_503A = new Set<string>([...LEFT_OUT, ...DOCTOR_FIELDS, ...FILE_FIELDS, ...CONFIRM_FIELDS]);

/** Shapes a loaded order for the actor; audits a 503A read in the same transaction. */
export async function orderDoc(actor: Actor, head: OrderHead, opts: { transaction?: Tx; audit?: string } = {}): Promise<Record<string, unknown>> {
  const vendor = orderVendorOf(actor);
  return shapeOrderDoc(actor, head, await orderItems(head.name, vendor, opts), opts);
}

/** The document from a head and child rows already loaded (the actor's own rows only, for a vendor). */
export async function shapeOrderDoc(
  actor: Actor,
  head: OrderHead,
  items: Record<string, unknown>[],
  opts: { transaction?: Tx; audit?: string } = {},
): Promise<Record<string, unknown>> {
  const vendor = orderVendorOf(actor);
  // built key by key, never by `delete` (which turns the ~70-key object into a slow dictionary before it is serialised)
  const left = !head.is_503a || vendor !== null ? LEFT_OUT_503A : LEFT_OUT;
  const doc: Record<string, unknown> = {};
  for (const k of Object.keys(head)) if (!left.has(k)) doc[k] = head[k];
  Object.assign(doc, { doctype: 'Sales Order', owner: head.owner_email, selling_price_list: head.price_list, is_503a: head.is_503a ? 1 : 0, items });
  if (vendor !== null) {
    // the vendor's projection (order-view.ts, the same for its lists): its own lines' totals, no 503A flag, owner or partner fields
    Object.assign(doc, vendorTotals(items));
    for (const f of VENDOR_HIDDEN_FIELDS) delete doc[f];
  }
  if (head.is_503a) {
    const allowed = vendor === null && (await canReadPatientData(actor, head, () => doctorStateOf(actor.id, opts)));
    if (allowed) Object.assign(doc, decryptPatientFields(head));
    await recordAudit(opts.transaction, actor, {
      action: opts.audit ?? 'read',
      object_type: 'Sales Order',
      object_name: head.name,
      fields: allowed ? [...PATIENT_FIELDS] : [],
    });
  }
  return doc;
}

/** GET /api/resource/Sales Order/{name}. */
export async function getOrder(actor: Actor, name: string, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>> {
  authorize(actor, 'read', 'Sales Order');
  return withTransaction(opts, async (transaction) => orderDoc(actor, await loadVisibleOrder(actor, name, { transaction }), { transaction }));
}
