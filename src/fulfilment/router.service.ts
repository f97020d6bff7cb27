/**
 * The fulfilment router: the handler of `fulfilment_route` outbox rows (one per order, written by
 * order submit; orders submitted before that release have one per line). The submit records each
 * line's route (its product mapping's partner, else its vendor, else the marketplace); the router
 * groups the partner lines of the order into one partner order per partner, each with its outbox row
 * that sends it. One transaction per run, under a lock per order: a repeat after a crash, a second
 * worker, or another row of the same order finds the partner orders made and adds nothing.
 */
import { productMappingsOf } from '../catalog/product-mapping.js';
import { execute, withTransaction, type Tx } from '../db/sequelize.js';
import { partnerOrderHead, recordLineRoutes, routingLinesOf, type RoutingLine } from '../orders/partner-fulfilment.service.js';
import type { AttemptOutcome, OutboxHandler, OutboxRow } from '../shared/outbox.js';
import type { PartnerLine } from './connector.js';
import { createPartnerOrders } from './partner-orders.service.js';
import { isPartnerKey, partnerSpec, type PartnerKey } from './partners.js';
import { decideRoute } from './route.js';
import { FULFILMENT_ROUTE_KIND } from '../orders/outbox-kinds.js';

export interface RouteSummary {
  sales_order: string;
  /** route per line index */
  routes: Record<number, string>;
  /** partner orders made by this run (none when an earlier run made them) */
  created: { id: number; partner: PartnerKey; lines: number }[];
  skipped?: string;
}

/** The partner lines of an order, grouped per partner, with each product's partner id (its mapping value now). */
async function partnerGroups(lines: (RoutingLine & { route: string })[], transaction: Tx): Promise<{ partner: PartnerKey; lines: PartnerLine[] }[]> {
  const mappings = await productMappingsOf(
    lines.map((l) => l.item_code),
    { transaction },
  );
  const groups = new Map<PartnerKey, PartnerLine[]>();
  for (const l of lines) {
    if (!isPartnerKey(l.route)) continue;
    const sku = mappings.get(l.item_code)?.mapping[partnerSpec(l.route).mappingField] ?? '';
    const line: PartnerLine = {
      idx: l.idx,
      item_code: l.item_code,
      item_name: l.item_name,
      qty: l.qty,
      uom: l.uom,
      rate: l.rate,
      amount: l.amount,
      partner_sku: (sku ?? '').trim(),
    };
    groups.set(l.route, [...(groups.get(l.route) ?? []), line]);
  }
  return [...groups].map(([partner, group]) => ({ partner, lines: group }));
}

/** Routes a submitted order: records any missing line route, creates the missing partner orders. */
export async function routeOrder(salesOrder: string, opts: { transaction?: Tx } = {}): Promise<RouteSummary> {
  return withTransaction(opts, async (transaction) => {
    // one router at a time per order: the others wait here, then find everything done
    await execute(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`svc:route:${salesOrder}`], { transaction });
    const head = await partnerOrderHead(salesOrder, { transaction });
    if (!head) return { sales_order: salesOrder, routes: {}, created: [], skipped: 'no such Sales Order' };
    if (head.docstatus !== 1)
      return { sales_order: salesOrder, routes: {}, created: [], skipped: head.docstatus === 2 ? 'cancelled before routing' : 'not submitted' };
    const lines = await routingLinesOf(salesOrder, { transaction });
    // lines submitted before submit recorded routes: decided now, from the mapping as it is
    const undecided = lines.filter((l) => !l.fulfilment_partner);
    const mappings = await productMappingsOf(
      undecided.map((l) => l.item_code),
      { transaction },
    ); // no query for an empty list
    const decided = undecided.map((l) => ({ idx: l.idx, route: decideRoute(mappings.get(l.item_code)?.mapping ?? {}, l.vendor !== null).route }));
    await recordLineRoutes(salesOrder, decided, { transaction });
    const routed = lines.map((l) => ({ ...l, route: l.fulfilment_partner ?? decided.find((d) => d.idx === l.idx)!.route }));
    const groups = await partnerGroups(routed, transaction);
    const created = await createPartnerOrders(salesOrder, groups, { transaction });
    return { sales_order: salesOrder, routes: Object.fromEntries(routed.map((l) => [l.idx, l.route])), created };
  });
}

async function run(row: OutboxRow): Promise<AttemptOutcome> {
  const salesOrder = String(row.payload.sales_order ?? row.target ?? '');
  if (!salesOrder) return { ok: false, giveUp: true, error: 'routing row without a sales_order' };
  const summary = await routeOrder(salesOrder);
  return { ok: true, excerpt: JSON.stringify(summary).slice(0, 500) };
}

/** The outbox handler of `fulfilment_route` rows (registered in src/modules.ts). */
export const fulfilmentRouteHandler: OutboxHandler = { kind: FULFILMENT_ROUTE_KIND, run, retryDelaySeconds: (next) => Math.min(600, 15 * 2 ** (next - 2)) };
