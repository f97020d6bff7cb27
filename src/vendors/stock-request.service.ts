/**
 * Stock update requests: a vendor asks for a stock change of one of its items (advances at once to
 * Requested); a Marketplace Officer approves (the stock changes, with a ledger entry) or rejects.
 */
import Joi from 'joi';
import type { Actor } from '../auth/actor.js';
import { authorize, scopeOf } from '../auth/policy/index.js';
import { recordAudit } from '../audit/audit.service.js';
import { adjustStock, setStock } from '../catalog/stock.service.js';
import { Op, fn, type Attributes } from 'sequelize';
import { selectRows, withTransaction, type Tx } from '../db/sequelize.js';
import { boundLiteral, columnsOf, once } from '../db/sql-names.js';
import { isUsableWarehouse } from '../catalog/warehouse.service.js';
import { StockUpdateRequest } from './stock-update-request.model.js';
import { VendorProfile } from './vendor-profile.model.js';
import { BusinessRuleError, InputError, NotFoundError } from '../shared/errors.js';
import { loadItemIndex } from './item-refs.js';

interface StockRequestInput {
  item: string;
  action: string;
  warehouse: string;
  quantity: number;
  reason?: string;
}

const requestSchema = Joi.object<StockRequestInput>({
  item: Joi.string().trim().min(1).max(140).required(),
  action: Joi.string().valid('Add', 'Remove', 'Set').insensitive().default('Add'),
  warehouse: Joi.string().trim().min(1).max(140).required(),
  quantity: Joi.number().min(0).max(1e12).required(),
  reason: Joi.string().trim().max(1000).allow(''),
});

/** A request as the API shows it, wire name ← attribute, in this order. */
const SHOWN = [
  ['name', 'name'],
  ['vendor', 'vendor'],
  ['item', 'itemCode'],
  ['action', 'action'],
  ['warehouse', 'warehouse'],
  ['quantity', 'quantity'],
  ['reason', 'reason'],
  ['status', 'status'],
  ['requested_by', 'requestedBy'],
  ['decided_by', 'decidedBy'],
  ['decided_at', 'decidedAt'],
  ['decision_reason', 'decisionReason'],
  ['created_at', 'createdAt'],
] as const;
/** A request as the API shows it (SHOWN's wire names, the model's types). */
export type StockRequestView = { [S in (typeof SHOWN)[number] as S[0]]: Attributes<StockUpdateRequest>[S[1]] };
const shownAttributes = once(() => {
  const c = columnsOf(StockUpdateRequest);
  return SHOWN.map(([wire, attribute]) => [c[attribute], wire] as [string, string]);
});

async function shownRequest(name: string, transaction: Tx): Promise<StockRequestView> {
  return (await StockUpdateRequest.findOne({ attributes: shownAttributes(), where: { name }, raw: true, transaction })) as unknown as StockRequestView;
}

/** svc.api.create_stock_update_request: the item is named by the vendor's SKU (or the service code). */
export async function createStockUpdateRequest(actor: Actor, input: Record<string, unknown>, opts: { transaction?: Tx } = {}): Promise<StockRequestView> {
  authorize(actor, 'create', 'Stock Update Request');
  const validated = requestSchema.validate(input, { abortEarly: true, stripUnknown: true });
  if (validated.error) throw new InputError(validated.error.details[0].message.replace(/"/g, ''));
  const value = validated.value;
  const action = value.action.charAt(0).toUpperCase() + value.action.slice(1).toLowerCase();
  if (action !== 'Set' && value.quantity <= 0) throw new InputError('quantity must be greater than 0');
  return withTransaction(opts, async (transaction) => {
    const profile = actor.vendor ? await VendorProfile.findByPk(actor.vendor, { attributes: ['name', 'separateSkus'], transaction }) : null;
    const vendor = profile ? { name: profile.name, separate_skus: profile.separateSkus } : undefined;
    if (!vendor) throw new NotFoundError(`Vendor Profile ${actor.vendor} not found`);
    // the vendor's SKU first, then the service code of one of its items
    const index = await loadItemIndex(vendor, [{ sku: value.item }], { transaction, extraCodes: [value.item] });
    const byCode = index.byCode.get(value.item);
    const item = index.bySku.get(value.item) ?? (byCode?.vendor === vendor.name ? byCode : undefined);
    if (!item) throw new NotFoundError(`Item ${value.item} not found`);
    const itemCode = item.item_code;
    if (!(await isUsableWarehouse(value.warehouse, vendor.name, { transaction }))) throw new BusinessRuleError(`Warehouse ${value.warehouse} not found`);
    const [{ n }] = await selectRows<{ n: number }>(`SELECT nextval('stock_update_request_seq') AS n`, [], { transaction });
    const name = `SUR-${String(n).padStart(5, '0')}`;
    await StockUpdateRequest.create(
      {
        name,
        vendor: vendor.name,
        itemCode,
        action: action as 'Add' | 'Remove' | 'Set',
        warehouse: value.warehouse,
        quantity: value.quantity,
        reason: value.reason || null,
        requestedBy: actor.email ?? actor.id,
      },
      { transaction, returning: false },
    );
    return shownRequest(name, transaction);
  });
}

/** Requests the actor may see: a vendor its own, an officer every one; optionally by status. */
export async function listStockUpdateRequests(actor: Actor, filters: { status?: string } = {}, opts: { transaction?: Tx } = {}) {
  authorize(actor, 'read', 'Stock Update Request');
  const scope = scopeOf(actor, 'Stock Update Request', `"${StockUpdateRequest.name}"`);
  return StockUpdateRequest.findAll({
    attributes: shownAttributes(),
    where: { [Op.and]: [boundLiteral(scope.sql, scope.bind), ...(filters.status ? [{ status: filters.status }] : [])] },
    order: [['createdAt', 'DESC']],
    limit: 200,
    raw: true,
    transaction: opts.transaction,
  }) as unknown as Promise<StockRequestView[]>;
}

/** An officer approves (stock changes, ledger entry) or rejects a Requested stock update request. */
export async function decideStockUpdateRequest(
  actor: Actor,
  name: string,
  decision: 'approve' | 'reject',
  reason?: string,
  opts: { transaction?: Tx } = {},
): Promise<StockRequestView & { stock?: Record<string, unknown> }> {
  authorize(actor, 'approve', 'Stock Update Request');
  if (decision !== 'approve' && decision !== 'reject') throw new InputError('decision must be approve or reject');
  return withTransaction(opts, async (transaction) => {
    const found = await StockUpdateRequest.findByPk(name, { lock: transaction.LOCK.UPDATE, transaction });
    const req = found && {
      name: found.name,
      item_code: found.itemCode,
      action: found.action,
      warehouse: found.warehouse,
      quantity: Number(found.quantity),
      status: found.status,
    };
    if (!req) throw new NotFoundError(`Stock Update Request ${name} not found`);
    if (req.status !== 'Requested') throw new BusinessRuleError(`Stock Update Request ${name} is already ${req.status}`);
    const stock = decision === 'approve' ? await applyRequest(actor, req, transaction) : undefined;
    await StockUpdateRequest.update(
      { status: decision === 'approve' ? 'Approved' : 'Rejected', decidedBy: actor.email ?? actor.id, decidedAt: fn('now'), decisionReason: reason ?? null },
      { where: { name }, transaction },
    );
    await recordAudit(transaction, actor, { action: decision, object_type: 'Stock Update Request', object_name: name });
    const row = await shownRequest(name, transaction);
    return stock ? { ...row, stock } : row;
  });
}

/** An approved request's stock change (set, add or remove), with its ledger entry naming the request. */
async function applyRequest(
  actor: Actor,
  req: { name: string; item_code: string; action: string; warehouse: string; quantity: number },
  transaction: Tx,
): Promise<Record<string, unknown>> {
  const voucher = { reason: `stock update request (${req.action})`, voucher_type: 'Stock Update Request', voucher_no: req.name };
  return req.action === 'Set'
    ? { ...(await setStock(actor, { item_code: req.item_code, warehouse: req.warehouse, qty: req.quantity, ...voucher }, { transaction })) }
    : {
        ...(await adjustStock(
          actor,
          { item_code: req.item_code, warehouse: req.warehouse, delta: req.action === 'Remove' ? -req.quantity : req.quantity, ...voucher },
          { transaction },
        )),
      };
}
