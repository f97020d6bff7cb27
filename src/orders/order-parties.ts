/** Who an order belongs to (its clinic and the user who placed it), for decisions made elsewhere (file reads, plugged into files by src/modules.ts). */
import type { Tx } from '../db/sequelize.js';
import type { OrderParties } from '../files/attachments.js';
import { SalesOrder } from './sales-order.model.js';

export async function orderParties(name: string, opts: { transaction?: Tx } = {}): Promise<OrderParties | undefined> {
  const o = await SalesOrder.findByPk(name, {
    attributes: ['customer', 'ownerUser', 'territory', 'createdBySalesPerson'],
    transaction: opts.transaction,
  });
  return o
    ? { customer: o.customer, owner_user: o.ownerUser, territory: o.territory ?? null, created_by_sales_person: o.createdBySalesPerson ?? null }
    : undefined;
}
