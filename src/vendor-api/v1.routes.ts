/** The vendor interface v1 under /api/method/svc.api.v1.*: thin routes over the vendor-api services. */
import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { AuthenticationError, InputError, RateLimitError } from '../shared/errors.js';
import { assertCleanText } from '../shared/text.js';
import { testFireWebhook } from '../webhooks/webhook.service.js';
import { createVendorWarehouse, updateVendorDetails } from '../vendors/vendor-self.service.js';
import { productStatus, syncInventory, syncPrices } from './catalog-sync.service.js';
import { reportFulfillment, type FulfillmentInput } from './fulfillment.service.js';
import { syncOrders } from './orders.service.js';
import { syncProducts } from './products.service.js';
import { issueToken, refreshToken } from './tokens.service.js';
import { recordsOf, v1Route } from './v1-route.js';
import {
  fulfillmentResult,
  inventoryResult,
  ordersResult,
  pricesResult,
  productStatusResult,
  productsResult,
  testFireResult,
  tokenResult,
  vendorDetailsResult,
  warehouseResult,
} from './v1.docs.js';
import { clientAddress } from '../http/pre.js';

const batch = (key: string) => Joi.object({ [key]: Joi.any().required() }).unknown(true);
const data = Joi.object({ data: Joi.alternatives(Joi.object(), Joi.string()).required() }).unknown(true);

/** `data` as an object or its JSON text, whose strings follow the text rule (shared/text.ts). */
function dataOf(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new InputError('data must be a JSON object');
    }
    assertCleanText(parsed, 'data');
    return parsed as Record<string, unknown>;
  }
  return value as Record<string, unknown>;
}

/**
 * sync.product_status named several products through a code field given as a list
 * (`sku: ["A", "B"]`, or its JSON text from a query string): one record per code.
 */
function listedCodes(args: Record<string, unknown>): Record<string, unknown>[] | undefined {
  for (const field of ['sku', 'item_code', 'vendor_product_id', 'medgrid_item_code']) {
    let value = args[field];
    if (typeof value === 'string' && value.trim().startsWith('[')) {
      try {
        value = JSON.parse(value);
      } catch {
        throw new InputError(`${field} must be a code or a JSON list of codes`);
      }
    }
    if (Array.isArray(value)) {
      if (value.length > 500) throw new RateLimitError(`Batch too large: ${value.length} records (at most 500 per request)`);
      return (value as unknown[]).map((code) => ({ [field === 'item_code' ? 'sku' : field]: code }));
    }
  }
  return undefined;
}

export const v1Routes: ServerRoute[] = [
  v1Route<{ client_id: string; client_secret: string }>({
    name: 'auth.token',
    result: tokenResult,
    description: 'Exchange client_id and client_secret for a one-hour bearer token (scope sync, or sync pharmacy)',
    write: true,
    public: true,
    // `scope` is optional (OAuth-style clients send it): a subset is granted, pharmacy from a standard vendor is 422
    args: Joi.object({
      client_id: Joi.string().max(255).allow('').required(),
      client_secret: Joi.string().max(1024).allow('').required(),
      grant_type: Joi.string().max(50),
      scope: Joi.string().max(100).allow(''),
    }),
    handler: ({ request, args }) =>
      issueToken(args.client_id, args.client_secret, {
        ip: clientAddress(request),
        scope: (args as { scope?: string }).scope,
        identified: (vendor) => ((request.app as { vendor?: string }).vendor = vendor), // for the Vendor API Log
      }),
  }),
  v1Route<{ access_token?: string; scope?: string }>({
    name: 'auth.refresh',
    result: tokenResult,
    description: 'Exchange a still-valid bearer token (Authorization header, or access_token) for a fresh one',
    write: true,
    public: true,
    args: Joi.object({
      access_token: Joi.string().max(4096),
      refresh_token: Joi.string().max(4096),
      token: Joi.string().max(4096),
      scope: Joi.string().max(100),
    }).unknown(true),
    handler: async ({ request, args }) => {
      const header = String(request.headers.authorization ?? '');
      const body = args as { refresh_token?: string; token?: string };
      const token = /^bearer /i.test(header) ? header.slice(7).trim() : (args.access_token ?? body.refresh_token ?? body.token);
      if (!token) throw new AuthenticationError('Send the still-valid token as Authorization: Bearer <token>');
      return refreshToken(token, args.scope);
    },
  }),
  v1Route<{ products: unknown }>({
    name: 'sync.products',
    result: productsResult,
    write: true,
    idempotent: true,
    batchKey: 'products',
    args: batch('products'),
    description: 'Create or update products: { products: record or list } (at most 500)',
    handler: ({ actor, args, transaction }) => syncProducts(actor, recordsOf(args.products), { transaction }),
  }),
  v1Route<{ prices: unknown }>({
    name: 'sync.prices',
    result: pricesResult,
    write: true,
    idempotent: true,
    batchKey: 'prices',
    args: batch('prices'),
    description: 'Upsert selling Item Prices: { prices: record or list } (at most 500)',
    handler: ({ actor, args, transaction }) => syncPrices(actor, recordsOf(args.prices), { transaction }),
  }),
  v1Route<{ inventory: unknown }>({
    name: 'sync.inventory',
    result: inventoryResult,
    write: true,
    idempotent: true,
    batchKey: 'inventory',
    args: batch('inventory'),
    description: 'Set on-hand stock: { inventory: [{ sku | vendor_product_id | medgrid_item_code, warehouse, quantity }] } (at most 500)',
    handler: ({ actor, args, transaction }) => syncInventory(actor, recordsOf(args.inventory), { transaction }),
  }),
  v1Route<Record<string, unknown>>({
    name: 'sync.product_status',
    result: productStatusResult,
    write: false,
    batchKey: ['items', 'products', 'skus'],
    args: Joi.object({
      items: Joi.any(),
      products: Joi.any(),
      skus: Joi.any(),
      sku: Joi.any(),
      item_code: Joi.any(),
      vendor_product_id: Joi.any(),
      medgrid_item_code: Joi.any(),
    }).unknown(true),
    description: 'Approval and publish state: { items: [{ sku | vendor_product_id | medgrid_item_code }] } or one product by query',
    handler: async ({ actor, args }) => {
      const list = args.items ?? args.products ?? args.skus;
      if (list !== undefined) return productStatus(actor, recordsOf(list));
      const many = listedCodes(args);
      if (many) return productStatus(actor, many);
      const one = { sku: args.sku ?? args.item_code, vendor_product_id: args.vendor_product_id, medgrid_item_code: args.medgrid_item_code };
      if (Object.values(one).every((v) => v === undefined)) throw new InputError('Name the products: items, or sku / vendor_product_id / medgrid_item_code');
      return productStatus(actor, [Object.fromEntries(Object.entries(one).filter(([, v]) => v !== undefined))]);
    },
  }),
  v1Route<{ since?: string; status?: string; page?: unknown; page_length?: unknown }>({
    name: 'sync.orders',
    result: ordersResult,
    write: false,
    args: Joi.object({ since: Joi.string().max(40).allow(''), status: Joi.string().max(20).allow(''), page: Joi.any(), page_length: Joi.any() }).unknown(true),
    description: 'Recent orders holding your products, newest first: since, status, page, page_length (max 100)',
    handler: ({ actor, args }) => syncOrders(actor, args),
  }),
  v1Route<{ data: unknown }>({
    name: 'sync.fulfillment',
    result: fulfillmentResult,
    write: true,
    idempotent: true,
    args: data,
    description: 'Report shipment and tracking: { data: fulfilment report }',
    handler: ({ actor, args, transaction }) => reportFulfillment(actor, dataOf(args.data) as unknown as FulfillmentInput, { transaction }),
  }),
  v1Route<{ data: unknown }>({
    name: 'pharmacy.fulfillment',
    result: fulfillmentResult,
    write: true,
    idempotent: true,
    args: data,
    description: 'sync.fulfillment for 503A/503B vendors (422 otherwise)',
    handler: ({ actor, args, transaction }) => reportFulfillment(actor, dataOf(args.data) as unknown as FulfillmentInput, { transaction, pharmacy: true }),
  }),
  v1Route<Record<string, unknown>>({
    name: 'sync.vendor_details',
    result: vendorDetailsResult,
    write: true,
    idempotent: true,
    args: Joi.object().unknown(true),
    description: 'Update your contact details: vendor_name, email, phone, country, profile_url, address, contact_name, support_email (or inside data)',
    handler: ({ actor, args, transaction }) => updateVendorDetails(actor, args.data ? dataOf(args.data) : args, { transaction }),
  }),
  v1Route<Record<string, unknown>>({
    name: 'warehouse.create',
    result: warehouseResult,
    write: true,
    idempotent: true,
    args: Joi.object().unknown(true),
    description: 'Create one of your warehouses: warehouse_name, label (or inside data)',
    handler: ({ actor, args, transaction }) => createVendorWarehouse(actor, args.data ? dataOf(args.data) : args, { transaction }),
  }),
  v1Route<Record<string, unknown>>({
    name: 'webhooks.test_fire',
    result: testFireResult,
    write: true,
    args: Joi.object().unknown(true),
    description: 'Send a signed webhook.test to your Webhook URL now (never retried); check ok, not the HTTP status',
    handler: ({ actor }) => testFireWebhook(actor, actor.vendor!),
  }),
];
