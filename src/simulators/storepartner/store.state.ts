/**
 * What the simulated shop holds: a small catalog with inventory at one location, and orders with
 * their fulfillment order and fulfillments. Numeric order ids are larger than 2^53 like Shopify's
 * (partners.md: key orders on admin_graphql_api_id), so they are BigInts here.
 */
import type { OrderRecord } from '../shared/orders.js';
import type { SimTracking } from '../shared/types.js';

export interface CatalogProduct {
  title: string;
  variants: { sku: string; price: string; title?: string; available?: number }[];
}

export const DEFAULT_CATALOG: CatalogProduct[] = [
  {
    title: 'Nitrile Exam Gloves',
    variants: [
      { sku: 'STORE-GLOVE-M', title: 'Medium', price: '12.50', available: 500 },
      { sku: 'STORE-GLOVE-L', title: 'Large', price: '12.50', available: 500 },
    ],
  },
  { title: 'Digital Thermometer', variants: [{ sku: 'STORE-THERM-1', price: '24.00', available: 100 }] },
  { title: 'Sterile Gauze Pads 4x4', variants: [{ sku: 'STORE-GAUZE-4X4', price: '8.75', available: 1000 }] },
];

export const LOCATION = { id: 'gid://shopify/Location/61000001', name: 'Shop location' };

export interface Variant {
  id: string;
  productId: string;
  title: string;
  sku: string;
  price: string;
  inventoryItemId: string;
  available: number;
  onHand: number;
}
export interface Product {
  id: string;
  title: string;
  handle: string;
  variants: Variant[];
}

export interface StoreLine {
  id: number;
  variantId: string | null;
  sku: string | null;
  title: string;
  quantity: number;
  price: string;
}
export interface StoreFulfillment {
  id: number;
  name: string;
  status: 'SUCCESS' | 'CANCELLED';
  shipmentStatus: string | null;
  tracking: SimTracking[];
  createdAt: string;
  updatedAt: string;
}
export interface StoreOrderData {
  legacyId: bigint;
  name: string;
  email: string | null;
  note: string | null;
  tags: string[];
  financialStatus: string;
  lines: StoreLine[];
  fulfillmentOrder: { id: number; status: 'OPEN' | 'CLOSED' | 'CANCELLED'; lines: { id: number; lineItemId: number; total: number; remaining: number }[] };
  fulfillments: StoreFulfillment[];
  cancelledAt: string | null;
  cancelReason: string | null;
  /** orderCancel's staff note and choices */
  staffNote?: string | null;
  restocked?: boolean;
  refunded?: boolean;
  /** set while a move already made its fulfillment (fulfillmentCreate) */
  fulfilledByApi?: boolean;
}
export type StoreOrder = OrderRecord<StoreOrderData>;

export const gid = (type: string, id: number | bigint | string) => `gid://shopify/${type}/${id}`;
export const gidNumber = (value: string, type: string): string | undefined => value.match(new RegExp(`^gid://shopify/${type}/(\\d+)$`))?.[1];

/** Products and variants with stable ids (the demo's mappings name them). */
export function buildCatalog(products: CatalogProduct[], firstIndex = 0): Product[] {
  return products.map((p, j) => {
    const i = firstIndex + j;
    const productId = gid('Product', 8_100_000_001 + i);
    return {
      id: productId,
      title: p.title,
      handle: p.title
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, ''),
      variants: p.variants.map((v, k) => {
        const n = 44_100_000_001 + i * 100 + k;
        return {
          id: gid('ProductVariant', n),
          productId,
          title: v.title ?? 'Default Title',
          sku: v.sku,
          price: v.price,
          inventoryItemId: gid('InventoryItem', n + 1_000_000_000),
          available: v.available ?? 100,
          onHand: v.available ?? 100,
        };
      }),
    };
  });
}

const BIG_BASE = 820_982_911_946_154_508n;
let sequence = 0;
/** An order id above 2^53 (each simulator and order gets its own). */
export function nextOrderId(): bigint {
  return BIG_BASE + BigInt(++sequence) * 7_919n;
}

/** Shopify's offset timestamps in webhooks ("2026-04-03T09:00:00-04:00"); UTC here. */
const restTime = (iso: string | null) => (iso ? iso.replace(/\.\d{3}Z$/, '+00:00') : null);

/** A fulfillment as the REST Order in a webhook shows it. */
function restFulfillment(f: StoreFulfillment) {
  return {
    id: f.id,
    admin_graphql_api_id: gid('Fulfillment', f.id),
    name: f.name,
    status: f.status.toLowerCase(),
    shipment_status: f.shipmentStatus,
    tracking_company: f.tracking[0]?.carrier ?? null,
    tracking_number: f.tracking[0]?.number ?? null,
    tracking_numbers: f.tracking.map((t) => t.number),
    tracking_url: f.tracking[0]?.url ?? null,
    tracking_urls: f.tracking.map((t) => t.url ?? null),
    created_at: restTime(f.createdAt),
    updated_at: restTime(f.updatedAt),
  };
}

/** The REST Order a webhook carries; BigInt ids are written as JSON numbers, digit for digit. */
export function restOrderJson(o: StoreOrder): string {
  const d = o.data;
  const fulfilled = d.fulfillmentOrder.lines.every((l) => l.remaining === 0);
  const body = {
    id: d.legacyId,
    admin_graphql_api_id: o.ref,
    name: d.name,
    email: d.email,
    created_at: restTime(o.createdAt),
    updated_at: restTime(o.updatedAt),
    cancelled_at: restTime(d.cancelledAt),
    cancel_reason: d.cancelReason?.toLowerCase() ?? null,
    financial_status: d.financialStatus.toLowerCase(),
    fulfillment_status: fulfilled ? 'fulfilled' : d.fulfillments.length ? 'partial' : null,
    tags: d.tags.join(', '),
    note: d.note,
    line_items: d.lines.map((l) => ({
      id: l.id,
      admin_graphql_api_id: gid('LineItem', l.id),
      variant_id: l.variantId ? Number(gidNumber(l.variantId, 'ProductVariant')) : null,
      sku: l.sku,
      title: l.title,
      quantity: l.quantity,
      price: l.price,
    })),
    fulfillments: d.fulfillments.map(restFulfillment),
  };
  return JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? `__big__${v}` : v)).replace(/"__big__(\d+)"/g, '$1');
}
