/**
 * Reading a whole catalog with a bulk operation, the partner's way for large data sets: one
 * `bulkOperationRunQuery` (cost 10), `currentBulkOperation` polled until COMPLETED (cost 1 each), then
 * the JSONL file streamed from its URL, one object a line, each variant after its product
 * (`__parentId`). The cost bucket is hardly touched, so 10,000 products take seconds, not the ~20
 * minutes paging costs at 50 units a second. The file's URL comes from the partner's answer: it is
 * fetched only from the partner's storage host (https) or the shop's own address (a simulator), with
 * no redirects and no credentials (the URL is signed), and the download is in the call log.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { loadUndici } from '../shared/undici.js';
import type { ConnectorContext } from '../fulfilment/connector.js';
import { logPartnerCall, outcomeOfStatus } from '../fulfilment/call-log.service.js';
import { shopUrl } from '../partners/storepartner/storepartner.graphql.js';
import { BusinessRuleError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';
import { askStore } from './store-catalog.js';
import type { StoreVariantRow } from './store-catalog.js';

const BULK_QUERY = `{ products { edges { node { id title status variants { edges { node { id title sku price inventoryQuantity } } } } } } }`;
const RUN = `mutation SvcBulkCatalog($query: String!) { bulkOperationRunQuery(query: $query) { bulkOperation { id status } userErrors { field message } } }`;
const POLL = `query SvcBulkStatus { currentBulkOperation(type: QUERY) { id status errorCode objectCount url } }`;
const STORAGE_HOST = 'storage.googleapis.com';
/** variants handed to the writer at once */
const BATCH = 500;
const POLL_MS = 1000;
const MAX_POLLS = 3600;

interface Operation {
  id: string;
  status: string;
  errorCode: string | null;
  url: string | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Why the file URL may not be fetched, or undefined when it may. */
export function bulkUrlProblem(raw: string, shop: string, simulatorsOnly = false): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'the bulk file URL is not a URL';
  }
  if (url.username || url.password) return 'the bulk file URL must not carry credentials';
  if (url.protocol === 'https:' && url.hostname === STORAGE_HOST && !simulatorsOnly) return undefined;
  if (url.origin === new URL(shop).origin) return undefined;
  return `the bulk file URL's host ${url.host} is neither the partner's storage nor the shop`;
}

async function runOperation(ctx: ConnectorContext): Promise<Operation> {
  const started = await askStore(ctx, { name: 'SvcBulkCatalog', query: RUN, variables: { query: BULK_QUERY }, cost: 10 });
  const payload = started.bulkOperationRunQuery as { bulkOperation: { id: string } | null; userErrors: { message: string }[] };
  if (!payload.bulkOperation) throw new BusinessRuleError(`storepartner refused the bulk read: ${payload.userErrors.map((e) => e.message).join('; ')}`);
  for (let i = 0; i < MAX_POLLS; i++) {
    const data = await askStore(ctx, { name: 'SvcBulkStatus', query: POLL, cost: 1 });
    const op = data.currentBulkOperation as Operation | null;
    if (op && op.id === payload.bulkOperation.id) {
      if (op.status === 'COMPLETED') return op;
      if (['FAILED', 'CANCELED', 'EXPIRED'].includes(op.status))
        throw new BusinessRuleError(`storepartner's bulk read ${op.status}${op.errorCode ? ` (${op.errorCode})` : ''}`);
    }
    await sleep(POLL_MS);
  }
  throw new BusinessRuleError('storepartner’s bulk read did not complete in time');
}

interface Line {
  id: string;
  title?: string;
  status?: string;
  sku?: string | null;
  price?: string;
  inventoryQuantity?: number | null;
  __parentId?: string;
}

/** Every variant of the store through one bulk operation; `onPage` gets them in batches, in file order. */
export async function readStoreCatalogBulk(ctx: ConnectorContext, onPage: (rows: StoreVariantRow[], products: number) => Promise<void>): Promise<void> {
  const op = await runOperation(ctx);
  if (!op.url) return; // an empty shop: no file
  const shop = shopUrl(ctx.credentials.api_url);
  const problem = bulkUrlProblem(op.url, shop, runtime().config.partners.simulatorsOnly);
  if (problem) throw new BusinessRuleError(problem);
  const dir = await mkdtemp(join(tmpdir(), 'svc-store-bulk-'));
  try {
    const file = join(dir, 'catalog.jsonl');
    await download(op.url, file, ctx.signal);
    await parseFile(file, onPage);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The file first, to a private temporary folder, then the parse: the partner's storage closes a
 * connection left idle, and the writes a batch waits for would leave it idle.
 */
async function download(url: string, file: string, signal: AbortSignal): Promise<void> {
  const { request } = await loadUndici();
  const t0 = performance.now();
  const res = await request(url, { method: 'GET', signal });
  const log = (error?: string) =>
    logPartnerCall({
      partner: 'storepartner',
      direction: 'outbound',
      method: 'GET',
      endpoint: 'GET bulk operation file',
      httpStatus: res.statusCode,
      durationMs: Math.round(performance.now() - t0),
      outcome: error && res.statusCode < 400 ? 'connection_error' : outcomeOfStatus(res.statusCode),
      error,
    });
  if (res.statusCode !== 200) {
    await res.body.dump();
    await log(`partner answered ${res.statusCode}`);
    throw new BusinessRuleError(`storepartner's bulk file answered ${res.statusCode}`);
  }
  try {
    await pipeline(res.body, createWriteStream(file, { mode: 0o600 }));
  } catch (err) {
    await log((err as Error).message.slice(0, 200));
    throw err;
  }
  await log();
}

async function parseFile(file: string, onPage: (rows: StoreVariantRow[], products: number) => Promise<void>): Promise<void> {
  const products = new Map<string, { title: string; status: string }>();
  let rows: StoreVariantRow[] = [];
  let newProducts = 0;
  for await (const text of createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity })) {
    if (!text.trim()) continue;
    const l = JSON.parse(text) as Line;
    if (!l.__parentId) {
      products.set(l.id, { title: l.title ?? '', status: l.status ?? 'ACTIVE' });
      newProducts++;
      continue;
    }
    const p = products.get(l.__parentId);
    if (!p) continue; // a child of something that is not a product
    rows.push({
      id: l.id,
      productId: l.__parentId,
      productTitle: p.title,
      productStatus: p.status,
      title: l.title ?? '',
      sku: l.sku || null,
      price: l.price ?? '0',
      available: typeof l.inventoryQuantity === 'number' ? l.inventoryQuantity : null,
    });
    if (rows.length >= BATCH) {
      await onPage(rows, newProducts);
      rows = [];
      newProducts = 0;
    }
  }
  if (rows.length || newProducts) await onPage(rows, newProducts);
}
