/**
 * The Sales Order document as GET /api/resource answers it (Frappe's as_dict: child rows with
 * parent/parentfield/idx, docstatus, owner, creation, modified), with every partner field, and the
 * 503A fields; patient fields only for the parties allowed. Every read of a 503A order is audited.
 */
import type { Actor } from '../auth/actor.js';
import { selectOne, selectRows, withTransaction, type Tx } from '../db/sequelize.js';
import { recordAudit } from '../audit/audit.service.js';
import { NotFoundError } from '../shared/errors.js';
import { canReadPatientData, orderVendorOf, orderVisible, vendorSeesOrder } from '../auth/policy/orders.rules.js';
import { authorize } from '../auth/policy/index.js';
import { decryptPatientFields } from './phi.js';
import { DOCTOR_FIELDS, FILE_FIELDS, CONFIRM_FIELDS, PARTNER_FIELDS, PATIENT_FIELDS } from './order.schemas.js';

const ts = (col: string) => `to_char(${col} AT TIME ZONE 'America/New_York', 'YYYY-MM-DD HH24:MI:SS.US')`;

const PARTNER_SELECT = PARTNER_FIELDS.map((f) => (f.endsWith('_sync_date') ? `${ts(`so.${f}`)} AS ${f}` : `so.${f}`)).join(', ');

/** Header columns of an order (aliases so, c; raw: patient fields still encrypted). */
export const ORDER_HEAD_COLUMNS = `so.name, so.customer, c.customer_name, so.territory, so.transaction_date, so.delivery_date, so.price_list, so.currency,
         so.shipping_address_name, so.shipping_method, so.docstatus, so.status, so.grand_total::float8 AS grand_total, so.total_qty::float8 AS total_qty, so.is_503a,
         so.owner_user::text AS owner_user, so.owner_email, so.created_by_sales_person,
         ${ts('so.created_at')} AS creation, ${ts('so.modified')} AS modified, ${ts('so.submitted_at')} AS submitted_at,
         ${ts('so.cancelled_at')} AS cancelled_at, ${ts('so.shipped_at')} AS shipped_at, ${ts('so.delivered_at')} AS delivered_at,
         ${[...DOCTOR_FIELDS, ...FILE_FIELDS, ...PATIENT_FIELDS, ...CONFIRM_FIELDS].map((f) => `so.${f}`).join(', ')},
         ${PARTNER_SELECT}`;
export const ORDER_HEAD_SQL = `SELECT ${ORDER_HEAD_COLUMNS} FROM sales_orders so JOIN customers c ON c.name = so.customer`;

/** Child row fields as Frappe shows them (alias soi), as [key, SQL expression]. */
const ITEM_FIELDS: [string, string][] = [
  ['name', 'soi.id::text'], ['parent', 'soi.parent'], ['parentfield', `'items'`], ['parenttype', `'Sales Order'`], ['doctype', `'Sales Order Item'`], ['idx', 'soi.idx'],
  ['item_code', 'soi.item_code'], ['item_name', 'soi.item_name'], ['qty', 'soi.qty::float8'], ['uom', 'soi.uom'], ['stock_uom', 'soi.uom'], ['rate', 'soi.rate::float8'],
  ['amount', 'soi.amount::float8'], ['warehouse', 'soi.warehouse'], ['delivered_qty', 'soi.delivered_qty::float8'], ['reserved_qty', 'soi.reserved_qty::float8'],
];
/** The child row as SQL json_build_object arguments (the submit statement returns its lines so). */
export const ORDER_ITEM_JSON_ARGS = ITEM_FIELDS.map(([k, e]) => `'${k}', ${e}`).join(', ');
export const ORDER_ITEM_KEYS = ITEM_FIELDS.map(([k]) => k);

export type OrderHead = Record<string, unknown> & { name: string; customer: string; owner_user: string | null; docstatus: number; is_503a: boolean; territory: string | null };

/** Loads an order the actor may see (404 otherwise). */
export async function loadVisibleOrder(actor: Actor, name: string, opts: { transaction?: Tx; forUpdate?: boolean } = {}): Promise<OrderHead> {
  const head = await selectOne<OrderHead>(`${ORDER_HEAD_SQL} WHERE so.name = $1${opts.forUpdate ? ' FOR UPDATE OF so' : ''}`, [name], opts);
  if (!head) throw new NotFoundError(`Sales Order ${name} not found`);
  const vendor = orderVendorOf(actor);
  const visible = vendor === null
    ? orderVisible(actor, head)
    : await vendorSeesOrder(vendor, head, async () => Boolean(await selectOne(`SELECT 1 FROM sales_order_items WHERE parent = $1 AND vendor = $2 LIMIT 1`, [name, vendor], opts)));
  if (!visible) throw new NotFoundError(`Sales Order ${name} not found`);
  return head;
}

/** Child rows as Frappe shows them; a vendor sees only its own lines. */
async function orderItems(name: string, vendor: string | null, opts: { transaction?: Tx }) {
  return selectRows<Record<string, unknown>>(
    `SELECT ${ITEM_FIELDS.map(([k, e]) => `${e} AS ${k}`).join(', ')}
       FROM sales_order_items soi WHERE soi.parent = $1 AND ($2::text IS NULL OR soi.vendor = $2) ORDER BY soi.idx`,
    [name, vendor],
    opts,
  );
}

/** Shapes a loaded order for the actor; audits a 503A read in the same transaction. */
export async function orderDoc(actor: Actor, head: OrderHead, opts: { transaction?: Tx; audit?: string } = {}): Promise<Record<string, unknown>> {
  const vendor = orderVendorOf(actor);
  return shapeOrderDoc(actor, head, await orderItems(head.name, vendor, opts), opts);
}

/** The document from a head and child rows already loaded (the actor's own rows only, for a vendor). */
export async function shapeOrderDoc(actor: Actor, head: OrderHead, items: Record<string, unknown>[], opts: { transaction?: Tx; audit?: string } = {}): Promise<Record<string, unknown>> {
  const vendor = orderVendorOf(actor);
  const { owner_user: _u, owner_email, created_by_sales_person: _sp, ...rest } = head;
  const doc: Record<string, unknown> = {
    ...rest, doctype: 'Sales Order', owner: owner_email, selling_price_list: head.price_list, is_503a: head.is_503a ? 1 : 0, items,
  };
  for (const f of PATIENT_FIELDS) delete doc[f];
  if (!head.is_503a || vendor !== null) for (const f of [...DOCTOR_FIELDS, ...FILE_FIELDS, ...CONFIRM_FIELDS]) delete doc[f];
  if (vendor !== null) {
    doc.grand_total = Math.round(items.reduce((s, l) => s + Number(l.amount), 0) * 100) / 100; // only its own lines
    delete doc.total_qty;
  }
  if (head.is_503a) {
    const allowed = vendor === null && canReadPatientData(actor, head);
    if (allowed) Object.assign(doc, decryptPatientFields(head));
    await recordAudit(opts.transaction, actor, { action: opts.audit ?? 'read', object_type: 'Sales Order', object_name: head.name, fields: allowed ? [...PATIENT_FIELDS] : [] });
  }
  return doc;
}

/** GET /api/resource/Sales Order/{name}. */
export async function getOrder(actor: Actor, name: string, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>> {
  authorize(actor, 'read', 'Sales Order');
  return withTransaction(opts, async (transaction) => orderDoc(actor, await loadVisibleOrder(actor, name, { transaction }), { transaction }));
}
