/** Who an order belongs to (its clinic and the user who placed it), for decisions made elsewhere (file reads). */
import type { Tx } from '../db/sequelize.js';
import { SalesOrder } from './sales-order.model.js';

export async function orderParties(name: string, opts: { transaction?: Tx } = {}): Promise<{ customer: string; owner_user: string | null } | undefined> {
  const o = await SalesOrder.findByPk(name, { attributes: ['customer', 'ownerUser'], transaction: opts.transaction });
  return o ? { customer: o.customer, owner_user: o.ownerUser } : undefined;
}
