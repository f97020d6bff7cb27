/**
 * Bulk operations, the partner's way of reading a large catalog (bulkOperationRunQuery, then
 * currentBulkOperation until COMPLETED, then the JSONL file at its `url`): the simulator checks
 * that the query parses and reads `products`, and writes every product and variant it holds as
 * Shopify does (one JSON object a line, a variant after its product with `__parentId`), whatever
 * fields the query names (id title status; id title sku price inventoryQuantity). One operation at
 * a time; the file is served at /_bulk/<n>.jsonl (Shopify: a signed storage URL) and the operation
 * completes at once. Bulk operations cost no more than their mutation (10) and the polls (1).
 */
import { GraphQLError, parse } from 'graphql';
import type { SimReply } from '../shared/http.js';
import type { Shop } from './store.shop.js';
import { gid } from './store.state.js';

export interface BulkOperation {
  id: string;
  status: 'CREATED' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELED';
  errorCode: string | null;
  objectCount: string;
  rootObjectCount: string;
  fileSize: string | null;
  url: string | null;
  partialDataUrl: null;
  createdAt: string;
  completedAt: string | null;
  query: string;
  type: 'QUERY';
}

/** The bulk file of the shop's products: a line per product, then a line per variant naming its parent. */
function productsJsonl(shop: Shop): { text: string; objects: number } {
  const lines: string[] = [];
  for (const p of shop.products) {
    lines.push(JSON.stringify({ id: p.id, title: p.title, status: 'ACTIVE' }));
    for (const v of p.variants)
      lines.push(JSON.stringify({ id: v.id, title: v.title, sku: v.sku, price: v.price, inventoryQuantity: v.available, __parentId: p.id }));
  }
  return { text: lines.length ? `${lines.join('\n')}\n` : '', objects: lines.length };
}

/** `GET /_bulk/<n>.jsonl`: a bulk operation's file (undefined when the path is not one). */
function bulkFile(files: Map<string, string>, path: string): SimReply | undefined {
  const m = path.match(/^\/_bulk\/(\d+)\.jsonl$/);
  if (!m) return undefined;
  const text = files.get(m[1]);
  return text === undefined ? { status: 404, text: 'NoSuchKey' } : { status: 200, headers: { 'Content-Type': 'application/jsonl' }, text };
}

export function createBulk(shop: Shop, baseUrl: () => string) {
  const files = new Map<string, string>();
  let current: BulkOperation | null = null;
  let n = 0;

  const run = ({ query }: { query: string }) => {
    if (current && (current.status === 'CREATED' || current.status === 'RUNNING'))
      return { bulkOperation: null, userErrors: [{ field: ['query'], message: 'A bulk query operation for this app and shop is already in progress.' }] };
    try {
      const doc = parse(query);
      if (!JSON.stringify(doc).includes('"value":"products"')) throw new GraphQLError('only products are served');
    } catch (e) {
      return { bulkOperation: null, userErrors: [{ field: ['query'], message: `Invalid bulk query: ${(e as Error).message}` }] };
    }
    n += 1;
    const { text, objects } = productsJsonl(shop);
    const at = new Date().toISOString();
    files.set(String(n), text);
    current = {
      id: gid('BulkOperation', 7_000_000 + n),
      status: 'COMPLETED',
      errorCode: null,
      objectCount: String(objects),
      rootObjectCount: String(shop.products.length),
      fileSize: String(Buffer.byteLength(text)),
      url: objects ? `${baseUrl()}/_bulk/${n}.jsonl` : null,
      partialDataUrl: null,
      createdAt: at,
      completedAt: at,
      query,
      type: 'QUERY',
    };
    return { bulkOperation: current, userErrors: [] };
  };

  return { run, current: () => current, file: (path: string) => bulkFile(files, path) };
}
