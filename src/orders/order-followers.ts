/**
 * Followers of a Sales Order's fate outside the marketplace (issue 13: the storefront order a Sales
 * Order was imported from gets its tracking and its cancellation back). The orders domain only says
 * when an order shipped or was cancelled, inside the transaction that did it; a higher domain
 * (integrations) plugs the port in src/modules.ts and writes its outbox rows in that transaction.
 */
import type { Tx } from '../db/sequelize.js';

export interface OrderFollowersPort {
  /** every line of the order has shipped (To Bill) or it was delivered (Completed): called on each shipment report after that */
  shipped(salesOrder: string, opts: { transaction: Tx }): Promise<void>;
  /** the submitted order was cancelled */
  cancelled(salesOrder: string, opts: { transaction: Tx }): Promise<void>;
}

let port: OrderFollowersPort | undefined;

/** Plugs the followers in (once per process, from src/modules.ts). */
export function plugOrderFollowers(p: OrderFollowersPort): void {
  port = p;
}

/** The plugged followers, or undefined while none is plugged (nobody follows then). */
export function orderFollowers(): OrderFollowersPort | undefined {
  return port;
}
