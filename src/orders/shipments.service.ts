/**
 * Shipments of an order (tables shipments and shipment_lots, owned here): the vendor fulfilment
 * report writes them through these functions, and svc.fulfillment_router.aggregate_shipments reads
 * the latest per source.
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { execute, selectRows, type Tx } from '../db/sequelize.js';
import { once } from '../db/sql-names.js';
import { loadVisibleOrder } from './order-doc.js';
import { orderSql } from './order-sql.js';
import { SalesOrderItem } from './sales-order-item.model.js';
import { SalesOrder } from './sales-order.model.js';
import { ShipmentLot } from './shipment-lot.model.js';
import { Shipment } from './shipment.model.js';

export interface AggregatedShipment {
  vendor: string;
  vendor_label: string;
  status: string | null;
  tracking_number: string | null;
  carrier: string | null;
  tracking_url: string | null;
}

const sql = once(() => ({
  latestPerSource:
    orderSql(`SELECT DISTINCT ON ({s.source}) {s.source} AS vendor, {s.sourceLabel} AS vendor_label, {s.status} AS status, {s.trackingNumber} AS tracking_number,
            {s.carrier} AS carrier, {s.trackingUrl} AS tracking_url
       FROM {s} WHERE {s.salesOrder} = $1 ORDER BY {s.source}, {s.updatedAt} DESC, {s.id} DESC`),
  // a re-sent report keeps what it does not repeat (carrier, URL, text, date) and moves the stage
  upsert:
    orderSql(`INSERT INTO {@s} ({s:salesOrder}, {s:source}, {s:sourceLabel}, {s:vendor}, {s:trackingNumber}, {s:carrier}, {s:trackingUrl}, {s:status}, {s:statusText}, {s:estimatedDeliveryDate})
       VALUES ($1, $2, $3, $2, $4, $5, $6, $7, $8, $9)
       ON CONFLICT ({s:salesOrder}, {s:source}, {s:trackingNumber}) DO UPDATE SET {s:carrier} = COALESCE(EXCLUDED.{s:carrier}, {@s}.{s:carrier}),
         {s:trackingUrl} = COALESCE(EXCLUDED.{s:trackingUrl}, {@s}.{s:trackingUrl}), {s:status} = EXCLUDED.{s:status},
         {s:statusText} = COALESCE(EXCLUDED.{s:statusText}, {@s}.{s:statusText}),
         {s:estimatedDeliveryDate} = COALESCE(EXCLUDED.{s:estimatedDeliveryDate}, {@s}.{s:estimatedDeliveryDate}), {s:updatedAt} = now()
       RETURNING {s:id} AS id`),
  lots: orderSql(`INSERT INTO {@sl} ({sl:shipmentId}, {sl:itemCode}, {sl:qty}, {sl:lotNumber}, {sl:serialNumbers}, {sl:expiryDate})
       SELECT $1, item_code, qty, lot_number, serial_numbers, expiry_date
         FROM jsonb_to_recordset($2::jsonb) AS r(item_code text, qty numeric, lot_number text, serial_numbers text[], expiry_date date)`),
  toShip: orderSql(`SELECT DISTINCT {soi.itemCode} AS item_code FROM {soi} WHERE {soi.parent} = $1 AND {soi.vendor} = $2 AND {soi.deliveredQty} < {soi.qty}`),
  lotsOf: orderSql(`SELECT {sl.itemCode} AS item_code, {sl.qty}::float8 AS qty, {sl.lotNumber} AS lot_number, {sl.serialNumbers} AS serial_numbers,
              to_char({sl.expiryDate}, 'YYYY-MM-DD') AS expiry_date
       FROM {sl} JOIN {s} ON {s.id} = {sl.shipmentId} WHERE {s.salesOrder} = $1 AND {s.source} = $2 AND {s.trackingNumber} = $3`),
  marked: orderSql(`UPDATE {@so} SET {so:modified} = now(), {so:updatedAt} = now(),
              {so:shippedAt} = CASE WHEN $2 AND {so:shippedAt} IS NULL THEN now() ELSE {so:shippedAt} END,
              {so:deliveredAt} = CASE WHEN $3 AND {so:deliveredAt} IS NULL THEN now() ELSE {so:deliveredAt} END
        WHERE {so:name} = $1`),
}));

/** One row per source (vendor profile or partner key) that has a shipment on the order. */
export async function aggregateShipments(actor: Actor, salesOrder: string): Promise<{ sales_order: string; shipments: AggregatedShipment[] }> {
  authorize(actor, 'read', 'Shipment');
  await loadVisibleOrder(actor, salesOrder); // 404 outside the actor's scope
  const shipments = await selectRows<AggregatedShipment>(sql().latestPerSource, [salesOrder]);
  return { sales_order: salesOrder, shipments };
}

// ---- the fulfilment report's steps (vendor-api calls these) ------------------------------------

export interface FulfilmentOrder {
  name: string;
  docstatus: number;
  status: string;
  is_503a: boolean;
  customer: string;
  shipping_address_name: string | null;
  doctor_email: string | null;
}

/** The order a fulfilment report names, locked for the report's transaction. */
export async function lockOrderForFulfilment(name: string, opts: { transaction: Tx }): Promise<FulfilmentOrder | undefined> {
  const o = await SalesOrder.findByPk(name, {
    attributes: ['name', 'docstatus', 'status', 'is503a', 'customer', 'shippingAddressName', 'checkoutDoctorEmail'],
    lock: opts.transaction.LOCK.UPDATE,
    transaction: opts.transaction,
  });
  return o
    ? {
        name: o.name,
        docstatus: o.docstatus,
        status: o.status,
        is_503a: o.is503a,
        customer: o.customer,
        shipping_address_name: o.shippingAddressName,
        doctor_email: o.checkoutDoctorEmail,
      }
    : undefined;
}

/** The distinct items of a vendor's lines on an order. */
export async function vendorItemsOnOrder(order: string, vendor: string, opts: { transaction?: Tx } = {}): Promise<string[]> {
  const rows = await SalesOrderItem.findAll({ attributes: ['itemCode'], where: { parent: order, vendor }, group: ['itemCode'], transaction: opts.transaction });
  return rows.map((r) => r.itemCode);
}

/** The distinct items of a vendor's lines on an order not shipped yet (those a shipped report marks shipped). */
export async function vendorItemsToShip(order: string, vendor: string, opts: { transaction?: Tx } = {}): Promise<string[]> {
  const rows = await selectRows<{ item_code: string }>(sql().toShip, [order, vendor], opts);
  return rows.map((r) => r.item_code);
}

/** The lots recorded on a shipment (order, source, tracking number): those a replacing report may drop. */
export async function shipmentLotsOf(order: string, source: string, trackingNumber: string, opts: { transaction?: Tx } = {}): Promise<LotInput[]> {
  return selectRows<LotInput>(sql().lotsOf, [order, source, trackingNumber], opts);
}

/** The stage of an existing shipment (order, source, tracking number), if there is one. */
export async function shipmentStage(
  order: string,
  source: string,
  trackingNumber: string,
  opts: { transaction?: Tx } = {},
): Promise<string | null | undefined> {
  const s = await Shipment.findOne({ attributes: ['status'], where: { salesOrder: order, source, trackingNumber }, transaction: opts.transaction });
  return s ? s.status : undefined;
}

export interface ShipmentReport {
  salesOrder: string;
  source: string;
  sourceLabel: string;
  trackingNumber: string;
  carrier: string | null;
  trackingUrl: string | null;
  stage: string;
  statusText: string | null;
  estimatedDeliveryDate: string | null;
}

/** Records a shipment (keyed order, source, tracking number; see the upsert for what a re-send keeps); answers its id. */
export async function upsertShipment(r: ShipmentReport, opts: { transaction: Tx }): Promise<number> {
  const [row] = await execute<{ id: number }>(
    sql().upsert,
    [r.salesOrder, r.source, r.sourceLabel, r.trackingNumber, r.carrier, r.trackingUrl, r.stage, r.statusText, r.estimatedDeliveryDate],
    opts,
  );
  return row.id;
}

export interface LotInput {
  item_code: string;
  qty: number | null;
  lot_number: string | null;
  serial_numbers: string[] | null;
  expiry_date: string | null;
}

/** Replaces a shipment's lots with `lots`. */
export async function replaceShipmentLots(shipmentId: number, lots: LotInput[], opts: { transaction: Tx }): Promise<void> {
  await ShipmentLot.destroy({ where: { shipmentId }, transaction: opts.transaction });
  if (lots.length) await execute(sql().lots, [shipmentId, JSON.stringify(lots)], opts);
}

/** Stamps the order as changed, and shipped / delivered when first reported so. */
export async function markOrderShipment(order: string, shipped: boolean, delivered: boolean, opts: { transaction: Tx }): Promise<void> {
  await execute(sql().marked, [order, shipped, delivered], opts);
}
