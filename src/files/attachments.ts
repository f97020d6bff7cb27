/**
 * The parties of the Sales Order a file is attached to (its clinic and the user who placed it), which
 * the file-read rule asks for. orders owns sales_orders and builds on files (orders attach and check
 * prescriptions and certificates), so files cannot import it: src/modules.ts plugs orders' lookup in
 * here. Unplugged, a read that depends on the order throws rather than guess.
 */
import type { Tx } from '../db/sequelize.js';

export interface OrderParties {
  customer: string;
  owner_user: string | null;
  /** who else sees the order (orderVisible): its territory and the sales person who created it */
  territory?: string | null;
  created_by_sales_person?: string | null;
}

export type OrderPartiesLookup = (order: string, opts: { transaction?: Tx }) => Promise<OrderParties | undefined>;

let plugged: OrderPartiesLookup | undefined;

/** Plugs the orders domain's lookup in (once per process, from src/modules.ts). */
export function plugOrderParties(lookup: OrderPartiesLookup): void {
  plugged = lookup;
}

/** The parties of an order (undefined: no such order). */
export function orderPartiesOf(order: string, opts: { transaction?: Tx } = {}): Promise<OrderParties | undefined> {
  if (!plugged) throw new Error('no order parties lookup plugged in: import src/modules.js first');
  return plugged(order, opts);
}
