/** svc.fulfillment_router.aggregate_shipments: the latest shipment of each vendor or partner on an order. */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { selectRows } from '../db/sequelize.js';
import { loadVisibleOrder } from './order-doc.js';

export interface AggregatedShipment {
  vendor: string;
  vendor_label: string;
  status: string | null;
  tracking_number: string | null;
  carrier: string | null;
  tracking_url: string | null;
}

/** One row per source (vendor profile or partner key) that has a shipment on the order. */
export async function aggregateShipments(actor: Actor, salesOrder: string): Promise<{ sales_order: string; shipments: AggregatedShipment[] }> {
  authorize(actor, 'read', 'Shipment');
  await loadVisibleOrder(actor, salesOrder); // 404 outside the actor's scope
  const shipments = await selectRows<AggregatedShipment>(
    `SELECT DISTINCT ON (source) source AS vendor, source_label AS vendor_label, status, tracking_number, carrier, tracking_url
       FROM shipments WHERE sales_order = $1 ORDER BY source, updated_at DESC, id DESC`,
    [salesOrder],
  );
  return { sales_order: salesOrder, shipments };
}
