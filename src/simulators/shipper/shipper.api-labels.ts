/**
 * The shipper's fake API, labels and shipments: `POST /orders/createlabelfororder` (a label ships the
 * order) and `GET /shipments` (optionally with the order's items), and the label PDF itself.
 */
import { json, type SimReply, type SimRequest } from '../shared/http.js';
import { byOrder, invalid, page, UPDATABLE } from './shipper.orders.js';
import { mine, type ShipperRoute, type ShipperState } from './shipper.state.js';

const flag = (v: string | null) => (v ?? '').toLowerCase() === 'true';

/**
 * `POST /orders/createlabelfororder` (ShipStation V1): buys a label for an order, which ships it
 * (a shipment with tracking, SHIP_NOTIFY), and answers the shipment with `labelData`, the label as a
 * base64 PDF. carrierCode, serviceCode and shipDate are required; a shipped order has no new label.
 */
async function createLabel(state: ShipperState, req: SimRequest, account: number): Promise<SimReply> {
  const b = req.json() as Record<string, unknown>;
  const order = mine(state.book.get(String(b?.orderId)), account);
  if (!order) return invalid({ 'request.orderId': [`Order ${String(b?.orderId)} was not found.`] });
  const missing = ['carrierCode', 'serviceCode', 'shipDate'].filter((k) => typeof b[k] !== 'string' || !b[k]);
  if (missing.length) return invalid(Object.fromEntries(missing.map((k) => [`request.${k}`, [`The ${k} field is required.`]])));
  if (!UPDATABLE.includes(order.status)) return invalid({ 'request.orderId': [`The order is ${order.status}.`] });
  order.data.labelCarrier = { carrierCode: String(b.carrierCode), serviceCode: String(b.serviceCode) };
  await state.book.move(order, 'shipped');
  const shipment = state.shipments.filter((x) => x.orderId === order.data.order.orderId).at(-1)!;
  const tracking = String(shipment.trackingNumber);
  shipment.labelData = labelPdf(String(order.data.order.orderNumber), tracking).toString('base64');
  const { batchId: _batch, shipmentItems: _items, ...answer } = shipment;
  return json(200, answer);
}

/** a shipment with its order's items (includeShipmentItems=true) */
function withItems(state: ShipperState, s: Record<string, unknown>) {
  const items = state.book.get(String(s.orderId))?.data.order.items as Record<string, unknown>[] | undefined;
  return {
    ...s,
    shipmentItems: (items ?? []).map((it) => ({
      orderItemId: it.orderItemId,
      lineItemKey: it.lineItemKey,
      sku: it.sku,
      name: it.name,
      quantity: it.quantity,
      unitPrice: it.unitPrice,
    })),
  };
}

export function labelRoutes(state: ShipperState): ShipperRoute[] {
  return [
    { method: 'POST', path: '/orders/createlabelfororder', handle: (req, account) => createLabel(state, req, account) },
    {
      method: 'GET',
      path: '/shipments',
      handle: ({ query }, account) => {
        const list = byOrder(state.shipments.filter(state.own(account)), query);
        return json(200, page('shipments', flag(query.get('includeShipmentItems')) ? list.map((s) => withItems(state, s)) : list, query));
      },
    },
  ];
}

/** A one-page PDF label (what `labelData` decodes to): the order number and tracking number as text. */
export function labelPdf(orderNumber: string, tracking: string): Buffer {
  const text = `(${`${orderNumber} ${tracking}`.replace(/[()\\]/g, '')}) Tj`;
  const stream = `BT /F1 18 Tf 36 200 Td ${text} ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 288 432] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((n) => `${String(n).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}
