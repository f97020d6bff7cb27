/**
 * Test data made the way the service makes it. Every factory calls the service functions a user, an
 * admin or a vendor reaches (registration and approval, users and API keys, the vendor product sync
 * and review, stock, orders), so what a test stands on has passed the same validation and written
 * the same rows as in production, and a change to a table breaks the factory with the service.
 * Each takes overrides and returns what tests use. They need the process's database: call them
 * after startTestApp (or initRuntime + initDatabase).
 *
 * Two writes have no service yet and are made here directly, marked as such: customers (with their
 * shipping address) and items owned by no vendor (the marketplace's own stock); only the seed makes
 * either today.
 */
import type { Actor, Role } from '../../src/auth/actor.js';
import { systemActor } from '../../src/auth/actor.js';
import { generateApiKeys, loadUserActor } from '../../src/auth/credentials.service.js';
import { upsertItemPriceRows } from '../../src/catalog/prices.js';
import { setStock } from '../../src/catalog/stock.service.js';
import { setProductMapping, type ProductMapping } from '../../src/catalog/product-mapping.js';
import { execute, withTransaction } from '../../src/db/sequelize.js';
import { SalesPerson } from '../../src/org/sales-person.model.js';
import { Territory } from '../../src/org/territory.model.js';
import { createOrder } from '../../src/orders/order.service.js';
import { submitOrder } from '../../src/orders/order-submit.js';
import { runtime } from '../../src/shared/runtime.js';
import { createUser, findUserByEmail } from '../../src/users/users.service.js';
import { syncPrices } from '../../src/vendor-api/catalog-sync.service.js';
import { reportFulfillment, type FulfillmentInput } from '../../src/vendor-api/fulfillment.service.js';
import { syncProducts } from '../../src/vendor-api/products.service.js';
import { vendorActor } from '../../src/vendor-api/tokens.service.js';
import { reviewProduct } from '../../src/vendors/product-review.service.js';
import { createStockUpdateRequest } from '../../src/vendors/stock-request.service.js';
import {
  approveVendor,
  generateCredentials,
  loadVendorForAuth,
  rejectVendor,
  setApiEnabled,
  setSuspended,
  setWebhook,
  updateVendorSettings,
} from '../../src/vendors/vendor-profile.service.js';
import { registerVendor } from '../../src/vendors/vendor-registration.service.js';

/** The admin every factory acts as (audit rows name it). */
const admin = systemActor('test:factory');

let serial = 0;
/** A name no other factory call of this process has used (each test file has its own database). */
export function unique(prefix: string): string {
  return `${prefix}-${process.pid}-${++serial}`;
}

export const MAIN = 'Main Warehouse - MSE';
export const OVERFLOW = 'Overflow Warehouse - MSE';

// ---- users and API keys ---------------------------------------------------------------------------

export interface UserOverrides {
  email?: string;
  full_name?: string;
  /** none by default: a user made here signs in with an API key (scrypt costs a tenth of a second) */
  password?: string;
  roles?: Role[];
  /** a Customer's clinic (default CUST-0001 when roles include Customer) */
  customer?: string | null;
  sales_person?: string | null;
  vendor?: string | null;
}

export interface BuiltUser {
  id: string;
  email: string;
  password?: string;
  roles: Role[];
  /** the user as the service sees it on an API-key request */
  actor: Actor;
}

/** A user (default: a Customer of CUST-0001) through createUser, as an admin or the CLI makes one. */
export async function buildUser(overrides: UserOverrides = {}): Promise<BuiltUser> {
  const roles = overrides.roles ?? ['Customer'];
  const customer = overrides.customer !== undefined ? overrides.customer : roles.includes('Customer') ? 'CUST-0001' : null;
  const email = overrides.email ?? `${unique('user')}@factory.test`;
  const user = await createUser(admin, { ...overrides, email, roles, customer, full_name: overrides.full_name ?? `Factory ${email}` });
  return { ...user, password: overrides.password, actor: await actorOf(user.email) };
}

/** The actor of an existing user (by email), as loaded for an API-key request. */
export async function actorOf(email: string): Promise<Actor> {
  const user = await findUserByEmail(email);
  const actor = user && (await loadUserActor(user.id, 'token'));
  if (!actor) throw new Error(`no enabled user ${email}`);
  return actor;
}

export interface BuiltApiKey {
  api_key: string;
  api_secret: string;
  user: string;
  /** "key:secret", the value of `Authorization: token …` */
  token: string;
}

/** A fresh API key pair of the user (it replaces the user's previous pair). */
export async function buildApiKey(email: string): Promise<BuiltApiKey> {
  const keys = await generateApiKeys(admin, { email });
  return { ...keys, token: `${keys.api_key}:${keys.api_secret}` };
}

// ---- customers (no service creates one yet) -------------------------------------------------------

export interface CustomerOverrides {
  name?: string;
  customer_name?: string;
  /** default East; null for a clinic outside every territory */
  territory?: string | null;
  price_list?: string | null;
  assigned_rep?: string | null;
  email?: string | null;
  /** a primary shipping address `<name>-Shipping` (default true) */
  address?: boolean;
}

export interface BuiltCustomer {
  name: string;
  customer_name: string;
  territory: string | null;
  price_list: string | null;
  assigned_rep: string | null;
  /** the customer's shipping address, for order bodies (none when built without) */
  shipping_address_name?: string;
}

/**
 * A clinic with a primary shipping address. Written directly: customers arrive with the sales-team
 * and ERP issues; until a service creates them this mirrors the demo seed's rows.
 */
export async function buildCustomer(overrides: CustomerOverrides = {}): Promise<BuiltCustomer> {
  const name = overrides.name ?? unique('CUST');
  const c = {
    name,
    customer_name: overrides.customer_name ?? `Clinic ${name}`,
    territory: overrides.territory === undefined ? 'East' : overrides.territory,
    price_list: overrides.price_list === undefined ? 'Standard Selling' : overrides.price_list,
    assigned_rep: overrides.assigned_rep === undefined ? 'Rick Rep' : overrides.assigned_rep,
    shipping_address_name: overrides.address === false ? undefined : `${name}-Shipping`,
  };
  await withTransaction(undefined, async (transaction) => {
    await execute(
      `INSERT INTO customers (name, customer_name, territory, price_list, assigned_rep, email) VALUES ($1, $2, $3, $4, $5, $6)`,
      [c.name, c.customer_name, c.territory, c.price_list, c.assigned_rep, overrides.email ?? null],
      { transaction },
    );
    if (c.shipping_address_name) {
      await execute(
        `INSERT INTO addresses (name, customer, address_title, address_line1, city, country, is_shipping_address, is_primary_address)
                     VALUES ($1, $2, $3, '1 Factory Road', 'Newark', 'United States', true, true)`,
        [c.shipping_address_name, c.name, c.customer_name],
        { transaction },
      );
    }
  });
  return c;
}

// ---- vendors --------------------------------------------------------------------------------------

export interface VendorOverrides {
  vendor_name?: string;
  email?: string;
  password?: string;
  country?: string;
  /** where the profile ends: Approved (default), left Pending Approval, or Rejected */
  status?: 'Approved' | 'Pending Approval' | 'Rejected';
  suspended?: boolean;
  api_enabled?: boolean;
  auto_approve?: boolean;
  scope?: 'standard' | '503A' | '503B';
  separate_skus?: boolean;
  sku_prefix?: string;
  /** v1 client credentials (default: issued when the API is enabled) */
  credentials?: boolean;
  webhook_url?: string;
}

export interface BuiltVendor {
  name: string;
  vendor_name: string;
  email: string;
  password: string;
  client_id?: string;
  client_secret?: string;
  webhook_secret?: string;
  /** the vendor as the v1 interface sees it behind a bearer token with every scope it may have */
  actor: Actor;
}

/**
 * A vendor through the onboarding a real one goes through: register_vendor (Pending Approval), then
 * as an admin: approval, settings, API access, credentials and webhook target, as asked.
 */
export async function buildVendor(overrides: VendorOverrides = {}): Promise<BuiltVendor> {
  const email = overrides.email ?? `${unique('vendor')}@factory.test`;
  const password = overrides.password ?? 'factory-vendor-password';
  const vendorName = overrides.vendor_name ?? `Factory Vendor ${email.split('@')[0]}`;
  const { name } = (await registerVendor({
    sales_representative_name: vendorName,
    vendor_name: vendorName,
    email,
    password,
    country: overrides.country ?? 'United States',
  })) as { name: string };
  const status = overrides.status ?? 'Approved';
  if (status === 'Approved') await approveVendor(admin, name);
  if (status === 'Rejected') await rejectVendor(admin, name);
  const settings = { auto_approve: overrides.auto_approve, scope: overrides.scope, sku_prefix: overrides.sku_prefix, separate_skus: overrides.separate_skus };
  if (Object.values(settings).some((v) => v !== undefined)) await updateVendorSettings(admin, name, JSON.parse(JSON.stringify(settings)));
  const apiEnabled = overrides.api_enabled ?? status === 'Approved';
  if (apiEnabled) await setApiEnabled(admin, name, true);
  if (overrides.suspended) await setSuspended(admin, name, true);
  const built: BuiltVendor = { name, vendor_name: vendorName, email, password, actor: await vendorActorOf(name) };
  if (overrides.credentials ?? apiEnabled) {
    const { client_id, client_secret } = await generateCredentials(admin, name);
    Object.assign(built, { client_id, client_secret });
  }
  if (overrides.webhook_url) built.webhook_secret = (await setWebhook(admin, name, overrides.webhook_url)).webhook_secret;
  return built;
}

/** The actor of an existing vendor (e.g. a demo vendor), as its bearer token would give it. */
export async function vendorActorOf(name: string): Promise<Actor> {
  const row = await loadVendorForAuth({ name });
  if (!row) throw new Error(`no vendor ${name}`);
  return vendorActor(row, { sub: name, scope: 'sync pharmacy', sv: row.secret_version, cid: row.client_id ?? '', auth_time: Math.floor(Date.now() / 1000) });
}

// the vendors that own items when a test names none: one standard, one 503A pharmacy, per database,
// both auto-approving (a review would queue a product.approved event for every item)
const defaultVendors = new Map<string, Promise<BuiltVendor>>();
function defaultVendor(scope: 'standard' | '503A'): Promise<BuiltVendor> {
  const key = `${runtime().config.databaseUrl}|${scope}`;
  let vendor = defaultVendors.get(key);
  if (!vendor) {
    vendor = buildVendor({ scope, auto_approve: true, vendor_name: scope === '503A' ? 'Factory Compounding Pharmacy' : 'Factory Medical Supply' });
    defaultVendors.set(key, vendor);
    vendor.catch(() => defaultVendors.delete(key));
  }
  return vendor;
}

// ---- items ----------------------------------------------------------------------------------------

export interface ItemOverrides {
  /** the owner: a vendor name, or null for the marketplace's own item; default a factory vendor (503A when is503a) */
  vendor?: string | null;
  /** the vendor's sku, also the item code unless the vendor keeps separate SKUs */
  sku?: string;
  /** prefix of the generated sku (item codes sort by it) */
  prefix?: string;
  item_name?: string;
  uom?: string;
  group?: string;
  /** a 503A item (its default vendor is a 503A pharmacy; a named vendor must be one) */
  is503a?: boolean;
  /** the Standard Selling rate (default 10); null for no price at all */
  price?: number | null;
  /** rates by price list, instead of `price` */
  prices?: Record<string, number>;
  /** on-hand quantity by warehouse (default 50 in Main Warehouse - MSE) */
  stock?: Record<string, number>;
  /** false leaves a vendor's product Pending review (default: approved, by review when its vendor does not auto-approve) */
  approved?: boolean;
  /** product mapping fields (e.g. { otc_sku: 'OTC-1' }), set as the catalog team sets them */
  mapping?: ProductMapping;
}

/**
 * An item in the catalog with prices and stock, returning its item code: created by its vendor's
 * product sync (sync.products, then sync.prices for more lists), approved by an admin's review
 * when the vendor does not auto-approve, stocked with setStock as an admin, and mapped to a
 * fulfilment partner with setProductMapping when asked.
 */
export async function buildItem(overrides: ItemOverrides = {}): Promise<string> {
  const prices = overrides.prices ?? (overrides.price === null ? {} : { 'Standard Selling': overrides.price ?? 10 });
  const sku = overrides.sku ?? unique(overrides.prefix ?? 'T');
  const itemCode = overrides.vendor === null ? await marketplaceItem(sku, overrides, prices) : await vendorItem(sku, overrides, prices);
  for (const [warehouse, qty] of Object.entries(overrides.stock ?? { [MAIN]: 50 }))
    await setStock(admin, { item_code: itemCode, warehouse, qty, reason: 'test factory' });
  if (overrides.mapping) await setProductMapping(admin, itemCode, overrides.mapping);
  return itemCode;
}

async function vendorItem(sku: string, overrides: ItemOverrides, prices: Record<string, number>): Promise<string> {
  const actor = overrides.vendor ? await vendorActorOf(overrides.vendor) : (await defaultVendor(overrides.is503a ? '503A' : 'standard')).actor;
  // a product is 503A exactly when its vendor is a 503A pharmacy
  if (overrides.vendor && overrides.is503a !== undefined && ((await loadVendorForAuth({ name: overrides.vendor }))!.scope === '503A') !== overrides.is503a) {
    throw new Error(`vendor ${overrides.vendor} cannot make ${overrides.is503a ? 'a 503A' : 'a standard'} item`);
  }
  const [first, ...more] = Object.entries(prices);
  const record = {
    sku,
    name: overrides.item_name ?? `Test Item ${sku}`,
    description: '<p>test item</p>',
    group: overrides.group ?? 'Medical Supplies',
    uom: overrides.uom ?? 'Nos',
    ...(first ? { price_list: first[0], price: first[1] } : {}),
  };
  const [outcome] = (await syncProducts(actor, [record])).results;
  if (!outcome?.ok) throw new Error(`sync.products refused ${sku}: ${JSON.stringify(outcome)}`);
  if (more.length) {
    const answer = await syncPrices(
      actor,
      more.map(([price_list, price]) => ({ sku, price_list, price })),
    );
    if (answer.failed) throw new Error(`sync.prices refused ${sku}: ${JSON.stringify(answer.results)}`);
  }
  const { medgrid_item_code: itemCode, workflow_state: state } = outcome.result;
  if (state === 'Pending' && overrides.approved !== false) await reviewProduct(admin, { item_code: itemCode, action: 'approve' });
  return itemCode;
}

/** The marketplace's own item (no vendor): no service creates one yet, so the row is written as the demo seed writes it. */
async function marketplaceItem(sku: string, overrides: ItemOverrides, prices: Record<string, number>): Promise<string> {
  const approved = overrides.approved !== false;
  await withTransaction(undefined, async (transaction) => {
    await execute(
      `INSERT INTO items (item_code, item_name, description, stock_uom, item_group, workflow_state, published, is_503a) VALUES ($1, $2, '<p>test item</p>', $3, $4, $5, $6, $7)`,
      [
        sku,
        overrides.item_name ?? `Test Item ${sku}`,
        overrides.uom ?? 'Nos',
        overrides.group ?? 'Medical Supplies',
        approved ? 'Approved' : 'Pending',
        approved,
        overrides.is503a ?? false,
      ],
      { transaction },
    );
    await upsertItemPriceRows(
      Object.entries(prices).map(([price_list, rate]) => ({ item_code: sku, price_list, rate, uom: overrides.uom ?? 'Nos' })),
      { transaction },
    );
  });
  return sku;
}

/** An item's on-hand quantity in a warehouse set to `qty`, as an admin's stock count sets it (setStock). */
export async function stockItem(itemCode: string, qty: number, warehouse = MAIN): Promise<void> {
  await setStock(admin, { item_code: itemCode, warehouse, qty, reason: 'test factory' });
}

/** An admin's review of a Pending vendor product (reviewProduct): approved, or rejected with a reason. */
export async function reviewItem(itemCode: string, decision: { approve: true } | { reject: string }): Promise<void> {
  if ('approve' in decision) await reviewProduct(admin, { item_code: itemCode, action: 'approve' });
  else await reviewProduct(admin, { item_code: itemCode, action: 'reject', reason: decision.reject });
}

/** A vendor's new price of its product in one price list, through its price sync (sync.prices), as the vendor changes it. */
export async function priceItem(vendor: string, sku: string, priceList: string, price: number): Promise<void> {
  const answer = await syncPrices(await vendorActorOf(vendor), [{ sku, price_list: priceList, price }]);
  if (answer.failed) throw new Error(`sync.prices refused ${sku}: ${JSON.stringify(answer.results)}`);
}

/** A vendor's stock update request (create_stock_update_request, status Requested); answers its name. */
export async function buildStockRequest(
  vendor: string,
  input: { item: string; action?: 'Set' | 'Add' | 'Remove'; warehouse?: string; quantity: number; reason?: string },
): Promise<string> {
  const request = await createStockUpdateRequest(await vendorActorOf(vendor), { action: 'Set', warehouse: MAIN, ...input });
  return request.name;
}

/** A vendor's shipment of a submitted order, reported as its v1 fulfilment call reports it (reportFulfillment). */
export async function buildShipment(vendor: string, input: FulfillmentInput): Promise<Record<string, unknown>> {
  return reportFulfillment(await vendorActorOf(vendor), input);
}

// ---- the sales org -----------------------------------------------------------------------------

/** A territory (default under United States), through its model: operations set up the sales org, no service creates one. */
export async function buildTerritory(name: string, parent = 'United States'): Promise<string> {
  await Territory.create({ name, parentTerritory: parent });
  return name;
}

export interface SalesPersonFields {
  parent?: string | null;
  isManager?: boolean;
  territory?: string | null;
  plan?: string | null;
  subrepPct?: number | null;
  enabled?: boolean;
}

function salesPersonAttributes(fields: SalesPersonFields): Partial<SalesPerson> {
  const attributes: Partial<SalesPerson> = {};
  if (fields.parent !== undefined) attributes.parentSalesPerson = fields.parent;
  if (fields.isManager !== undefined) attributes.isManager = fields.isManager;
  if (fields.territory !== undefined) attributes.territory = fields.territory;
  if (fields.plan !== undefined) attributes.commissionPlan = fields.plan;
  if (fields.subrepPct !== undefined) attributes.subrepPct = fields.subrepPct;
  if (fields.enabled !== undefined) attributes.enabled = fields.enabled;
  return attributes;
}

/** A sales person (full name = name, plan `standard` unless given), through its model: operations appoint them, no service does. */
export async function buildSalesPerson(name: string, fields: SalesPersonFields = {}): Promise<string> {
  await SalesPerson.create({ name, fullName: name, commissionPlan: 'standard', ...salesPersonAttributes(fields) });
  return name;
}

/** A sales person's fields changed (parent, manager flag, plan, sub-rep slice, enabled), through its model: no service edits the sales org. */
export async function changeSalesPerson(name: string, fields: SalesPersonFields): Promise<void> {
  await SalesPerson.update(salesPersonAttributes(fields), { where: { name } });
}

// ---- orders ---------------------------------------------------------------------------------------

export interface OrderLine {
  item_code: string;
  qty: number;
  rate?: number;
  warehouse?: string;
}

/** A valid create request for CUST-0001 (Harbor Family Clinic), as a client sends it. */
export function orderBody(lines: OrderLine[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    customer: 'CUST-0001',
    transaction_date: '2026-11-22',
    delivery_date: '2026-12-01',
    price_list: 'Contract Pricing',
    shipping_address_name: 'CUST-0001-Shipping',
    items: lines.map((l) => ({ item_code: l.item_code, qty: l.qty, rate: l.rate ?? 10, warehouse: l.warehouse ?? MAIN })),
    ...extra,
  };
}

export interface OrderOverrides {
  /** who places it (default the demo clinic buyer of CUST-0001) */
  by?: string | Actor;
  /** default: one line of a new item, qty 1 */
  lines?: OrderLine[];
  /** submit it (reserving stock) after creating it; default false (a Draft) */
  submitted?: boolean;
  /** more body fields (customer, price_list, 503A fields…), over orderBody's */
  body?: Record<string, unknown>;
}

export interface BuiltOrder {
  name: string;
  docstatus: 0 | 1;
  customer: string;
  lines: OrderLine[];
}

/** A Sales Order through createOrder (and submitOrder when `submitted`), as its customer places it. */
export async function buildOrder(overrides: OrderOverrides = {}): Promise<BuiltOrder> {
  const actor = typeof overrides.by === 'object' ? overrides.by : await actorOf(overrides.by ?? 'clinic@demo.svc.local');
  const lines = overrides.lines ?? [{ item_code: await buildItem(), qty: 1 }];
  const order = await createOrder(actor, orderBody(lines, overrides.body));
  if (overrides.submitted) await submitOrder(actor, order.name);
  return { name: order.name, docstatus: overrides.submitted ? 1 : 0, customer: order.customer, lines };
}
