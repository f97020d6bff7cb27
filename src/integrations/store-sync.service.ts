/**
 * svc.storepartner.sync_catalog and sync_inventory (and their daily jobs): a connected store's
 * products and variants become catalog items under review, its stock per variant is recorded.
 * Each variant's digest (title, variant title, SKU, price, status) is kept in store_variants; only
 * variants that are new or whose digest changed are written (one transaction per page), so a re-run
 * with no change writes no item, price, variant or stock row: only the run's own record (the
 * connection's last sync, the partner call log). Progress is logged every PROGRESS_EVERY products.
 */
import type { Actor } from '../auth/actor.js';
import { db, execute, selectRows, type Tx } from '../db/sequelize.js';
import { sha256Hex } from '../shared/crypto.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';
import { lookupVendorItems, upsertVendorItems, type VendorItemRow } from '../catalog/vendor-items.service.js';
import { connectorContext } from '../fulfilment/context.js';
import { findConnection, openSecret, ownerOf } from './connections.service.js';
import { IntegrationConnection, type SyncRecord } from './integration-connection.model.js';
import { readStoreCatalog, type StoreVariantRow } from './store-catalog.js';
import { readStoreCatalogBulk } from './store-bulk.js';
import { importStoreOrders } from './store-orders.service.js';
import { StoreVariant } from './store-variant.model.js';

export type SyncKind = 'catalog' | 'inventory' | 'orders';
/** how the catalog is read: one bulk operation (the default), or GraphQL pages (small shops, a shop refusing bulk reads) */
export type ReadMode = 'bulk' | 'pages';
const PROGRESS_EVERY = 1000;
const NEEDS_CLASSIFICATION = 'Needs classification';

export interface SyncResult {
  ok: boolean;
  kind: SyncKind;
  shop_domain: string;
  summary: string;
  counts: Record<string, number>;
  seconds: number;
}

/** The item a variant becomes: `<owner>-<sku>` (or `<owner>-V<variant number>` without a SKU), kept apart per owner. */
export function itemCodeOf(owner: string, v: { id: string; sku: string | null }): string {
  const key = v.sku ?? `V${v.id.split('/').pop() ?? v.id}`;
  return `${owner}-${key}`.slice(0, 140);
}

const nameOf = (v: StoreVariantRow) => (v.title && v.title !== 'Default Title' ? `${v.productTitle} - ${v.title}` : v.productTitle).slice(0, 140);
const digestOf = (v: StoreVariantRow) => sha256Hex(JSON.stringify([v.productTitle, v.title, v.sku, v.price, v.productStatus]));

interface Known {
  digest: string;
  itemCode: string;
  available: number | null;
}

async function knownVariants(connectionId: number, transaction?: Tx): Promise<Map<string, Known>> {
  const t = StoreVariant.getTableName() as string;
  const rows = await selectRows<{ variant_id: string; digest: string; item_code: string; available: number | null }>(
    `SELECT variant_id, digest, item_code, available FROM ${t} WHERE connection_id = $1`,
    [connectionId],
    { transaction },
  );
  return new Map(rows.map((r) => [r.variant_id, { digest: r.digest, itemCode: r.item_code, available: r.available }]));
}

/**
 * The item rows of changed variants: new ones under review; a changed name sends a reviewed item
 * back to review, a price alone does not. A code held by another owner's item is refused (null).
 */
async function itemRows(conn: IntegrationConnection, changed: StoreVariantRow[], transaction: Tx): Promise<(VendorItemRow | null)[]> {
  const vendor = conn.ownerType === 'vendor' ? conn.owner : null;
  const codes = changed.map((v) => itemCodeOf(conn.owner, v));
  const existing = new Map((await lookupVendorItems(vendor ?? '', { skus: [], vpids: [], codes }, { transaction, lock: true })).map((r) => [r.item_code, r]));
  return changed.map((v, i) => {
    const was = existing.get(codes[i]);
    if (was && was.vendor !== vendor) return null;
    const name = nameOf(v);
    const keep = was && was.item_name === name && was.workflow_state !== 'Pending' ? was.workflow_state : 'Pending';
    const disabled = v.productStatus !== 'ACTIVE';
    return {
      item_code: codes[i],
      item_name: name,
      description: was?.description ?? null,
      stock_uom: was?.stock_uom ?? 'Nos',
      item_group: was?.item_group ?? NEEDS_CLASSIFICATION,
      vendor,
      vendor_sku: v.sku,
      vendor_product_id: v.id,
      image: was?.image ?? null,
      standard_rate: Number(v.price),
      valuation_rate: was?.valuation_rate ?? null,
      workflow_state: keep,
      published: keep === 'Approved' && !disabled,
      disabled,
      is_503a: false,
      rejection_reason: keep === 'Rejected' ? (was?.rejection_reason ?? null) : null,
      rx_attributes: null,
    };
  });
}

const upsertVariantsSql = () => {
  const t = StoreVariant.getTableName() as string;
  return `INSERT INTO ${t} (connection_id, variant_id, product_id, item_code, digest, available, synced_at)
    SELECT $1, r.variant_id, r.product_id, r.item_code, r.digest, r.available, now()
      FROM json_to_recordset($2::json) AS r(variant_id text, product_id text, item_code text, digest text, available integer)
    ON CONFLICT (connection_id, variant_id) DO UPDATE SET product_id = EXCLUDED.product_id, item_code = EXCLUDED.item_code,
      digest = EXCLUDED.digest, available = EXCLUDED.available, synced_at = now()`;
};

/** Writes one page's changed variants (items and their store_variants rows) in one transaction. */
async function writeCatalogChanges(conn: IntegrationConnection, changed: StoreVariantRow[]): Promise<{ written: number; refused: number }> {
  if (changed.length === 0) return { written: 0, refused: 0 };
  return db().transaction(async (transaction) => {
    const rows = await itemRows(conn, changed, transaction);
    const ours = changed.map((v, i) => ({ v, row: rows[i] })).filter((x): x is { v: StoreVariantRow; row: VendorItemRow } => x.row !== null);
    // an item row that is already exactly so is not rewritten by the upsert (no row version)
    const written = ours.length ? await upsertVendorItems(JSON.stringify(ours.map((x) => x.row)), { transaction }) : new Set<string>();
    const variants = ours.map(({ v, row }) => ({
      variant_id: v.id,
      product_id: v.productId,
      item_code: row.item_code,
      digest: digestOf(v),
      available: v.available,
    }));
    if (variants.length) await execute(upsertVariantsSql(), [conn.id, JSON.stringify(variants)], { transaction });
    // a code held by another owner's item is counted and tried again on the next run
    return { written: written.size, refused: changed.length - ours.length };
  });
}

/**
 * Items no variant of the store leads to any more (the variant is gone, or its SKU changed and so
 * its item code): disabled, never deleted (orders may name them); the gone variants' rows dropped.
 */
async function retireItems(conn: IntegrationConnection, codes: string[], goneIds: string[]): Promise<number> {
  if (codes.length === 0 && goneIds.length === 0) return 0;
  return db().transaction(async (transaction) => {
    const vendor = conn.ownerType === 'vendor' ? conn.owner : null;
    const items = codes.length ? await lookupVendorItems(vendor ?? '', { skus: [], vpids: [], codes }, { transaction, lock: true }) : [];
    const rows = items.filter((r) => r.vendor === vendor && !r.disabled).map((r) => ({ ...r, disabled: true, published: false }));
    if (rows.length) await upsertVendorItems(JSON.stringify(rows), { transaction });
    const t = StoreVariant.getTableName() as string;
    if (goneIds.length) await execute(`DELETE FROM ${t} WHERE connection_id = $1 AND variant_id = ANY($2::text[])`, [conn.id, goneIds], { transaction });
    return rows.length;
  });
}

function storeContext(conn: IntegrationConnection, signal: AbortSignal) {
  const secret = openSecret(conn.secretEnc);
  return connectorContext('storepartner', Object.freeze({ api_url: conn.apiUrl ?? `https://${conn.shopDomain}`, access_token: secret.access_token ?? '' }), {
    signal,
  });
}

const read = (mode: ReadMode) => (mode === 'bulk' ? readStoreCatalogBulk : readStoreCatalog);

async function runCatalog(conn: IntegrationConnection, signal: AbortSignal, mode: ReadMode): Promise<Record<string, number>> {
  const log = runtime().logger;
  const known = await knownVariants(conn.id);
  const seen = new Set<string>();
  const renamed: string[] = [];
  const c = { products: 0, variants: 0, new: 0, changed: 0, unchanged: 0, written: 0, refused: 0, retired: 0 };
  let nextLog = PROGRESS_EVERY;
  await read(mode)(storeContext(conn, signal), async (rows, products) => {
    const changed: StoreVariantRow[] = [];
    for (const v of rows) {
      seen.add(v.id);
      const k = known.get(v.id);
      if (k && k.digest === digestOf(v)) {
        c.unchanged++;
        continue;
      }
      if (k) c.changed++;
      else c.new++;
      changed.push(v);
      if (k && k.itemCode !== itemCodeOf(conn.owner, v)) renamed.push(k.itemCode); // its SKU changed: a new item code
    }
    const w = await writeCatalogChanges(conn, changed);
    c.written += w.written;
    c.refused += w.refused;
    c.products += products;
    c.variants += rows.length;
    if (c.products >= nextLog) {
      nextLog += PROGRESS_EVERY;
      log.info({ shop: conn.shopDomain, kind: 'catalog', ...c }, 'storefront catalog sync progress');
    }
  });
  const goneIds = [...known.keys()].filter((id) => !seen.has(id));
  c.retired = await retireItems(conn, [...goneIds.map((id) => known.get(id)!.itemCode), ...renamed], goneIds);
  return c;
}

async function runInventory(conn: IntegrationConnection, signal: AbortSignal, mode: ReadMode): Promise<Record<string, number>> {
  const known = await knownVariants(conn.id);
  const c = { variants: 0, changed: 0, unchanged: 0, unknown: 0 };
  await read(mode)(storeContext(conn, signal), async (rows) => {
    const changed = rows.filter((v) => {
      c.variants++;
      const k = known.get(v.id);
      if (!k) return (c.unknown++, false); // not synced into the catalog yet: the catalog sync takes it
      if (k.available === v.available) return (c.unchanged++, false);
      return (c.changed++, true);
    });
    if (changed.length === 0) return;
    const t = StoreVariant.getTableName() as string;
    await execute(
      `UPDATE ${t} s SET available = r.available, synced_at = now() FROM json_to_recordset($2::json) AS r(variant_id text, available integer)
        WHERE s.connection_id = $1 AND s.variant_id = r.variant_id`,
      [conn.id, JSON.stringify(changed.map((v) => ({ variant_id: v.id, available: v.available })))],
    );
  });
  return c;
}

const summaryOf = (kind: SyncKind, c: Record<string, number>) =>
  kind === 'catalog'
    ? `${c.products} products, ${c.variants} variants: ${c.new} new, ${c.changed} changed, ${c.unchanged} unchanged, ${c.retired} retired${c.refused ? `, ${c.refused} refused (item code in use)` : ''}`
    : kind === 'inventory'
      ? `${c.variants} variants: ${c.changed} stock changes, ${c.unchanged} unchanged${c.unknown ? `, ${c.unknown} not in the catalog yet` : ''}`
      : `${c.orders} orders: ${c.imported} imported as Sales Orders, ${c.refused} refused, ${c.already} imported before, ${c.skipped} not for import`;

const RECORD_FIELD = { catalog: 'lastCatalogSync', inventory: 'lastInventorySync', orders: 'lastOrdersSync' } as const;

function runKind(conn: IntegrationConnection, kind: SyncKind, signal: AbortSignal, mode: ReadMode): Promise<Record<string, number>> {
  if (kind === 'catalog') return runCatalog(conn, signal, mode);
  if (kind === 'inventory') return runInventory(conn, signal, mode);
  return importStoreOrders(conn, signal);
}

/**
 * Runs `work` while this process holds the sync's advisory lock, else a 409: the lock is
 * transaction-scoped on a connection of its own, held for the run and released however it ends.
 */
async function alone<T>(key: string, busy: string, work: () => Promise<T>): Promise<T> {
  return db().transaction(async (transaction) => {
    const [row] = await execute<{ locked: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked`, [key], { transaction });
    if (!row.locked) throw new ConflictError(busy);
    return work();
  });
}

/** Runs one sync of one connection, alone (per connection and kind); records and logs its result. */
export async function syncConnection(conn: IntegrationConnection, kind: SyncKind, opts: { signal?: AbortSignal; mode?: ReadMode } = {}): Promise<SyncResult> {
  const signal = opts.signal ?? new AbortController().signal;
  const mode = opts.mode ?? 'bulk';
  const log = runtime().logger;
  return alone(`svc:store-sync:${conn.id}:${kind}`, `A ${kind} sync of ${conn.shopDomain} is already running`, async () => {
    const started = Date.now();
    let result: SyncResult;
    log.info({ shop: conn.shopDomain, kind }, 'storefront sync started');
    try {
      const counts = await runKind(conn, kind, signal, mode);
      result = { ok: true, kind, shop_domain: conn.shopDomain ?? '', summary: summaryOf(kind, counts), counts, seconds: (Date.now() - started) / 1000 };
    } catch (err) {
      const reason = (err as Error).message.slice(0, 300);
      result = { ok: false, kind, shop_domain: conn.shopDomain ?? '', summary: `failed: ${reason}`, counts: {}, seconds: (Date.now() - started) / 1000 };
    }
    const record: SyncRecord = { at: new Date().toISOString(), ok: result.ok, summary: result.summary, counts: result.counts };
    await IntegrationConnection.update({ [RECORD_FIELD[kind]]: record }, { where: { id: conn.id } });
    log[result.ok ? 'info' : 'warn']({ shop: conn.shopDomain, kind, seconds: result.seconds, ...result.counts }, `storefront ${kind} sync: ${result.summary}`);
    return result;
  });
}

/** svc.storepartner.sync_catalog / sync_inventory for the actor's own store. */
export async function syncOwnStore(actor: Actor, kind: SyncKind, mode?: ReadMode): Promise<SyncResult> {
  const owner = ownerOf(actor, 'sync');
  const conn = await findConnection(owner, 'storefront');
  if (!conn || conn.status !== 'connected') throw new NotFoundError('No storefront is connected: install one from /portal/integrations');
  return syncConnection(conn, kind, { mode });
}

/** The jobs: every connected store, one after the other. */
export async function syncAllStores(kind: SyncKind): Promise<SyncResult[]> {
  const conns = await IntegrationConnection.findAll({ where: { integration: 'storefront', status: 'connected' }, order: [['id', 'ASC']] });
  const results: SyncResult[] = [];
  for (const conn of conns) results.push(await syncConnection(conn, kind));
  return results;
}
