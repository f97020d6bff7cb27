/**
 * inventorySetQuantities (2026-04: @idempotent required, changeFromQuantity on every quantity,
 * compare-and-set): every quantity is checked before any is set.
 */
import { err, variantByItem, type Shop, type UserError } from './store.shop.js';
import { gid, LOCATION, type Variant } from './store.state.js';
import { itemView } from './store.views.js';

type Maybe<T> = T | null | undefined;
export interface InventorySetQuantitiesArgs {
  input: { name: string; reason: string; quantities: { inventoryItemId: string; locationId: string; quantity: number; changeFromQuantity?: Maybe<number> }[] };
}
type QuantityInput = InventorySetQuantitiesArgs['input']['quantities'][number];

const REASONS = [
  'correction',
  'cycle_count_available',
  'damaged',
  'movement_created',
  'movement_updated',
  'movement_received',
  'movement_canceled',
  'other',
  'promotion',
  'quality_control',
  'received',
  'reservation_created',
  'reservation_deleted',
  'reservation_updated',
  'restock',
  'safety_stock',
  'shrinkage',
];

/** One quantity's variant and current value, its userErrors pushed to `errors`. */
function checkQuantity(
  shop: Shop,
  name: string,
  q: QuantityInput,
  i: number,
  errors: UserError[],
): { v: Variant | undefined; q: QuantityInput; current: number } {
  const v = variantByItem(shop, q.inventoryItemId);
  if (!v) errors.push(err(['input', 'quantities', i, 'inventoryItemId'], 'The specified inventory item could not be found.', 'INVALID_INVENTORY_ITEM'));
  if (q.locationId !== LOCATION.id)
    errors.push(err(['input', 'quantities', i, 'locationId'], 'The specified location could not be found.', 'INVALID_LOCATION'));
  // 2026-04: every quantity states what it changes from (null opts out of the compare)
  if (!('changeFromQuantity' in q))
    errors.push(
      err(
        ['input', 'quantities', i, 'changeFromQuantity'],
        'changeFromQuantity is required: pass the quantity you expect, or null to skip the check.',
        'CHANGE_FROM_QUANTITY_REQUIRED',
      ),
    );
  const current = v ? (name === 'on_hand' ? v.onHand : v.available) : 0;
  if (v && q.changeFromQuantity !== null && q.changeFromQuantity !== undefined && q.changeFromQuantity !== current) {
    errors.push(
      err(['input', 'quantities', i, 'changeFromQuantity'], 'The specified compare quantity does not match the current quantity.', 'COMPARE_QUANTITY_STALE'),
    );
  }
  return { v, q, current };
}

export function inventorySetQuantities(shop: Shop, args: InventorySetQuantitiesArgs): unknown {
  const input = args.input;
  const errors: UserError[] = [];
  if (!['available', 'on_hand'].includes(input.name))
    errors.push(err(['input', 'name'], "The quantity name must be either 'available' or 'on_hand'.", 'INVALID_NAME'));
  if (!REASONS.includes(input.reason)) errors.push(err(['input', 'reason'], 'The specified reason is invalid.', 'INVALID_REASON'));
  const rows = input.quantities.map((q, i) => checkQuantity(shop, input.name, q, i, errors));
  if (errors.length) return { inventoryAdjustmentGroup: null, userErrors: errors };
  const changes = rows.map(({ v, q, current }) => {
    const delta = q.quantity - current;
    if (input.name === 'on_hand') v!.onHand = q.quantity;
    else {
      v!.available = q.quantity;
      v!.onHand += delta;
    }
    return { name: input.name, delta, quantityAfterChange: q.quantity, item: itemView(v!), location: LOCATION };
  });
  return {
    inventoryAdjustmentGroup: { id: gid('InventoryAdjustmentGroup', shop.next()), createdAt: new Date().toISOString(), reason: input.reason, changes },
    userErrors: [],
  };
}
