/**
 * Stock update requests: a vendor asks for a stock change of one of its items (advances at once to
 * Requested); a Marketplace Officer approves (the stock changes, with a ledger entry) or rejects.
 */
import Joi from 'joi';
import type { Actor } from '../auth/actor.js';
import { authorize, scopeOf } from '../auth/policy/index.js';
import { recordAudit } from '../audit/audit.service.js';
import { adjustStock, setStock } from '../catalog/stock.service.js';
import { execute, selectOne, selectRows, withTransaction, type Tx } from '../db/sequelize.js';
import { BusinessRuleError, InputError, NotFoundError } from '../shared/errors.js';
import { loadItemIndex } from './item-refs.js';

const requestSchema = Joi.object({
  item: Joi.string().trim().min(1).max(140).required(),
  action: Joi.string().valid('Add', 'Remove', 'Set').insensitive().default('Add'),
  warehouse: Joi.string().trim().min(1).max(140).required(),
  quantity: Joi.number().min(0).max(1e12).required(),
  reason: Joi.string().trim().max(1000).allow(''),
});

const FIELDS = `name, vendor, item_code AS item, action, warehouse, quantity::float8 AS quantity, reason, status, requested_by, decided_by, decided_at, decision_reason, created_at`;

/** svc.api.create_stock_update_request: the item is named by the vendor's SKU (or the service code). */
export async function createStockUpdateRequest(actor: Actor, input: Record<string, unknown>, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>> {
  authorize(actor, 'create', 'Stock Update Request');
  const { value, error } = requestSchema.validate(input, { abortEarly: true, stripUnknown: true });
  if (error) throw new InputError(error.details[0].message.replace(/"/g, ''));
  const action = (value.action as string).charAt(0).toUpperCase() + (value.action as string).slice(1).toLowerCase();
  if (action !== 'Set' && value.quantity <= 0) throw new InputError('quantity must be greater than 0');
  return withTransaction(opts, async (transaction) => {
    const vendor = await selectOne<{ name: string; separate_skus: boolean }>(`SELECT name, separate_skus FROM vendor_profiles WHERE name = $1`, [actor.vendor], { transaction });
    if (!vendor) throw new NotFoundError(`Vendor Profile ${actor.vendor} not found`);
    // the vendor's SKU first, then the service code of one of its items
    const index = await loadItemIndex(vendor, [{ sku: value.item }], { transaction, extraCodes: [value.item] });
    const byCode = index.byCode.get(value.item);
    const item = index.bySku.get(value.item) ?? (byCode?.vendor === vendor.name ? byCode : undefined);
    if (!item) throw new NotFoundError(`Item ${value.item} not found`);
    const itemCode = item.item_code;
    const wh = await selectOne(`SELECT 1 FROM warehouses WHERE name = $1 AND NOT disabled AND NOT is_group AND (vendor IS NULL OR vendor = $2)`, [value.warehouse, vendor.name], { transaction });
    if (!wh) throw new BusinessRuleError(`Warehouse ${value.warehouse} not found`);
    const [{ n }] = await selectRows<{ n: number }>(`SELECT nextval('stock_update_request_seq') AS n`, [], { transaction });
    const name = `SUR-${String(n).padStart(5, '0')}`;
    await execute(
      `INSERT INTO stock_update_requests (name, vendor, item_code, action, warehouse, quantity, reason, requested_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [name, vendor.name, itemCode, action, value.warehouse, value.quantity, value.reason || null, actor.email ?? actor.id],
      { transaction },
    );
    return (await selectOne(`SELECT ${FIELDS} FROM stock_update_requests WHERE name = $1`, [name], { transaction }))!;
  });
}

/** Requests the actor may see: a vendor its own, an officer every one; optionally by status. */
export async function listStockUpdateRequests(actor: Actor, filters: { status?: string } = {}, opts: { transaction?: Tx } = {}) {
  authorize(actor, 'read', 'Stock Update Request');
  const scope = scopeOf(actor, 'Stock Update Request', 'r');
  return selectRows(`SELECT ${FIELDS} FROM stock_update_requests r WHERE ${scope.sql} AND ($status::text IS NULL OR r.status = $status) ORDER BY r.created_at DESC LIMIT 200`, { ...scope.bind, status: filters.status ?? null }, opts);
}

/** An officer approves (stock changes, ledger entry) or rejects a Requested stock update request. */
export async function decideStockUpdateRequest(actor: Actor, name: string, decision: 'approve' | 'reject', reason?: string, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>> {
  authorize(actor, 'approve', 'Stock Update Request');
  if (decision !== 'approve' && decision !== 'reject') throw new InputError('decision must be approve or reject');
  return withTransaction(opts, async (transaction) => {
    const req = await selectOne<{ name: string; item_code: string; action: string; warehouse: string; quantity: number; status: string }>(
      `SELECT name, item_code, action, warehouse, quantity::float8 AS quantity, status FROM stock_update_requests WHERE name = $1 FOR UPDATE`, [name], { transaction });
    if (!req) throw new NotFoundError(`Stock Update Request ${name} not found`);
    if (req.status !== 'Requested') throw new BusinessRuleError(`Stock Update Request ${name} is already ${req.status}`);
    let stock: Record<string, unknown> | undefined;
    if (decision === 'approve') {
      const voucher = { reason: `stock update request (${req.action})`, voucher_type: 'Stock Update Request', voucher_no: req.name };
      stock = req.action === 'Set'
        ? { ...(await setStock(actor, { item_code: req.item_code, warehouse: req.warehouse, qty: req.quantity, ...voucher }, { transaction })) }
        : { ...(await adjustStock(actor, { item_code: req.item_code, warehouse: req.warehouse, delta: req.action === 'Remove' ? -req.quantity : req.quantity, ...voucher }, { transaction })) };
    }
    await execute(
      `UPDATE stock_update_requests SET status = $2, decided_by = $3, decided_at = now(), decision_reason = $4, updated_at = now() WHERE name = $1`,
      [name, decision === 'approve' ? 'Approved' : 'Rejected', actor.email ?? actor.id, reason ?? null],
      { transaction },
    );
    await recordAudit(transaction, actor, { action: decision, object_type: 'Stock Update Request', object_name: name });
    const row = (await selectOne<Record<string, unknown>>(`SELECT ${FIELDS} FROM stock_update_requests WHERE name = $1`, [name], { transaction }))!;
    return stock ? { ...row, stock } : row;
  });
}
