/**
 * The simplified placement ({ customer_id, product_id, quantity }): one line, the customer's price
 * list and default shipping address, the first warehouse by priority holding enough stock; created
 * and submitted in one transaction with the same validations and errors as the full flow.
 */
import type { Actor } from '../auth/actor.js';
import { authorize, customerMatches } from '../auth/policy/index.js';
import { selectOne, withTransaction, type Tx } from '../db/sequelize.js';
import { BusinessRuleError, NotFoundError } from '../shared/errors.js';
import { createOrder } from './order.service.js';
import { submitOrder } from './order-submit.js';
import { exceedsMessage } from '../catalog/stock.service.js';
import { itemExists } from '../catalog/items.service.js';
import { firstWarehouseWithStock } from '../catalog/warehouse.service.js';
import { defaultShippingAddress, findCustomer } from '../org/org.service.js';

export interface PlaceOrderInput {
  customer_id?: string;
  product_id: string;
  quantity: number;
  [field: string]: unknown;
}

/** Creates and submits a one-line order; answers { status: 'success', order_id }. */
export async function placeOrder(actor: Actor, input: PlaceOrderInput, opts: { transaction?: Tx } = {}): Promise<{ status: 'success'; order_id: string }> {
  authorize(actor, 'create', 'Sales Order');
  const { customer_id, product_id, quantity, ...extra } = input; // extra: 503A fields
  // the full flow's message for an omitted customer ("same validations and errors")
  if (!customer_id) throw new BusinessRuleError('Customer is mandatory');
  return withTransaction(opts, async (transaction) => {
    const c = await findCustomer(customer_id, { transaction });
    if (!c || !customerMatches(actor, c.name, c.territory, c.assigned_rep)) throw new NotFoundError(`Customer ${customer_id} not found`);
    const address = await defaultShippingAddress(customer_id, { transaction });
    if (!address) throw new BusinessRuleError('Shipping address is required');
    const wh = await firstWarehouseWithStock(product_id, quantity, { transaction });
    if (!(await itemExists(product_id, { transaction }))) throw new BusinessRuleError(`Row 1: Item ${product_id} not found`);
    if (!wh) throw new BusinessRuleError(exceedsMessage(1, product_id));
    const today = (await selectOne<{ d: string }>(`SELECT CURRENT_DATE::text AS d`, [], { transaction }))!.d;
    const order = await createOrder(
      actor,
      {
        customer: customer_id,
        transaction_date: today,
        delivery_date: today,
        shipping_address_name: address,
        items: [{ item_code: product_id, qty: quantity, warehouse: wh }],
        ...extra,
      },
      { transaction },
    );
    await submitOrder(actor, order.name, { transaction });
    return { status: 'success', order_id: order.name };
  });
}
