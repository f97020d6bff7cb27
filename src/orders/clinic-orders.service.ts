/**
 * A clinic's own recent orders with each shipment (the portal's orders page, issue 26 section 3):
 * the clinic's view of svc.fulfillment_router.aggregate_shipments over a page of its orders. Only a
 * customer account has it; the orders are those the policy lets the actor read (a customer: its
 * own), and the customer's own as well, so nobody sees another clinic's orders here. A shipment has
 * its stage, carrier and tracking link; never the internal source label (the page names the carrier).
 */
import { Op } from 'sequelize';
import type { Actor } from '../auth/actor.js';
import { authorize, scopeOf, seesClinicOrders } from '../auth/policy/index.js';
import { selectRows } from '../db/sequelize.js';
import { boundLiteral, once } from '../db/sql-names.js';
import { PermissionError } from '../shared/errors.js';
import { orderSql } from './order-sql.js';
import { SalesOrder } from './sales-order.model.js';

export interface ClinicShipment {
  status: string | null;
  carrier: string | null;
  tracking_number: string | null;
  tracking_url: string | null;
}

export interface ClinicOrder {
  name: string;
  transaction_date: string;
  created_at: Date;
  status: string;
  grand_total: number;
  currency: string;
  shipments: ClinicShipment[];
}

export interface ClinicOrdersPage {
  orders: ClinicOrder[];
  page: number;
  pages: number;
  total: number;
}

export const CLINIC_ORDERS_PAGE_LENGTH = 10;

// the latest row per source, as aggregate_shipments shows it, for a page of orders at once
const shipmentsSql = once(() =>
  orderSql(`SELECT DISTINCT ON ({s.salesOrder}, {s.source}) {s.salesOrder} AS sales_order, {s.status} AS status, {s.carrier} AS carrier,
            {s.trackingNumber} AS tracking_number, {s.trackingUrl} AS tracking_url
       FROM {s} WHERE {s.salesOrder} = ANY($1) ORDER BY {s.salesOrder}, {s.source}, {s.updatedAt} DESC, {s.id} DESC`),
);

/** The clinic's own orders, newest first, `pageLength` a page (page 1 first), each with its shipments. */
export async function listClinicOrders(actor: Actor, input: { page?: number; pageLength?: number } = {}): Promise<ClinicOrdersPage> {
  authorize(actor, 'read', 'Sales Order');
  if (!seesClinicOrders(actor) || !actor.customer) throw new PermissionError('The orders page shows a clinic’s own orders: it is for customer accounts');
  const pageLength = Math.min(Math.max(1, input.pageLength ?? CLINIC_ORDERS_PAGE_LENGTH), 100);
  const page = Math.max(1, Math.floor(input.page ?? 1));
  const scope = scopeOf(actor, 'Sales Order', `"${SalesOrder.name}"`);
  const { rows, count } = await SalesOrder.findAndCountAll({
    attributes: ['name', 'transactionDate', 'createdAt', 'status', 'grandTotal', 'currency'],
    where: { [Op.and]: [boundLiteral(scope.sql, scope.bind), { customer: actor.customer }] },
    order: [
      ['createdAt', 'DESC'],
      ['name', 'DESC'],
    ],
    limit: pageLength,
    offset: (page - 1) * pageLength,
  });
  const shipments = await shipmentsOf(
    actor,
    rows.map((r) => r.name),
  );
  return {
    orders: rows.map((r) => ({
      name: r.name,
      transaction_date: r.transactionDate,
      created_at: r.createdAt,
      status: r.status,
      grand_total: Number(r.grandTotal),
      currency: r.currency,
      shipments: shipments.get(r.name) ?? [],
    })),
    page,
    pages: Math.max(1, Math.ceil(count / pageLength)),
    total: count,
  };
}

async function shipmentsOf(actor: Actor, orders: string[]): Promise<Map<string, ClinicShipment[]>> {
  const byOrder = new Map<string, ClinicShipment[]>();
  if (orders.length === 0) return byOrder;
  authorize(actor, 'read', 'Shipment');
  type Row = ClinicShipment & { sales_order: string };
  for (const row of await selectRows<Row>(shipmentsSql(), [orders])) {
    const list = byOrder.get(row.sales_order) ?? [];
    list.push({ status: row.status, carrier: row.carrier, tracking_number: row.tracking_number, tracking_url: row.tracking_url });
    byOrder.set(row.sales_order, list);
  }
  return byOrder;
}
