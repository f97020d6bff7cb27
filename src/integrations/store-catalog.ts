/**
 * Reading a connected store's catalog page by page through the Admin GraphQL API 2026-04 under the
 * shop's cost bucket (partners/storepartner/storepartner.graphql.ts): products with their
 * variants, a product of more variants than a page holds completed with `product(id)` pages. A
 * THROTTLED answer or an empty bucket waits as the partner says and asks again (a sync is never
 * failed for the rate limit); any other refusal ends the sync with the partner's reason.
 */
import type { ConnectorContext } from '../fulfilment/connector.js';
import { storeGraphql, StoreStop, type StoreOperation } from '../partners/storepartner/storepartner.graphql.js';

/** Products per page and variants per product on that page: requested cost 2 + 75 × (3 + 10) = 977 ≤ 1000. */
export const PRODUCTS_PER_PAGE = 75;
export const VARIANTS_PER_PRODUCT = 10;
const VARIANT_PAGE = 100;

export interface StoreVariantRow {
  id: string;
  productId: string;
  productTitle: string;
  productStatus: string;
  title: string;
  sku: string | null;
  price: string;
  available: number | null;
}

interface VariantNode {
  id: string;
  title: string;
  sku: string | null;
  price: string;
  inventoryQuantity: number | null;
}
interface Page<T> {
  nodes: T[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}
interface ProductNode {
  id: string;
  title: string;
  status: string;
  variants: Page<VariantNode>;
}

const VARIANT_FIELDS = 'id title sku price inventoryQuantity';
const PRODUCTS = `query SvcCatalogPage($first: Int!, $after: String) {
  products(first: $first, after: $after) {
    pageInfo { hasNextPage endCursor }
    nodes { id title status variants(first: ${VARIANTS_PER_PRODUCT}) { pageInfo { hasNextPage endCursor } nodes { ${VARIANT_FIELDS} } } }
  }
}`;
const MORE_VARIANTS = `query SvcProductVariants($id: ID!, $first: Int!, $after: String) {
  product(id: $id) { variants(first: $first, after: $after) { pageInfo { hasNextPage endCursor } nodes { ${VARIANT_FIELDS} } } }
}`;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason as Error)), { once: true });
  });

/** One operation, asked again while the shop's bucket says wait (at most `maxWaits` times). */
export async function askStore(ctx: ConnectorContext, op: StoreOperation, maxWaits = 120): Promise<Record<string, unknown>> {
  for (let waits = 0; ; waits++) {
    try {
      return await storeGraphql(ctx, op);
    } catch (err) {
      if (!(err instanceof StoreStop) || err.outcome.kind !== 'retry' || waits >= maxWaits) throw err;
      await sleep(Math.max(250, (err.outcome.afterSeconds ?? 1) * 1000), ctx.signal);
    }
  }
}

const rowsOf = (p: { id: string; title: string; status: string }, variants: VariantNode[]): StoreVariantRow[] =>
  variants.map((v) => ({
    id: v.id,
    productId: p.id,
    productTitle: p.title,
    productStatus: p.status,
    title: v.title,
    sku: v.sku || null,
    price: v.price,
    available: typeof v.inventoryQuantity === 'number' ? v.inventoryQuantity : null,
  }));

async function remainingVariants(ctx: ConnectorContext, p: ProductNode): Promise<VariantNode[]> {
  const out: VariantNode[] = [];
  let after = p.variants.pageInfo.endCursor;
  for (let more = p.variants.pageInfo.hasNextPage; more;) {
    const data = await askStore(ctx, {
      name: 'SvcProductVariants',
      query: MORE_VARIANTS,
      variables: { id: p.id, first: VARIANT_PAGE, after },
      cost: 3 + VARIANT_PAGE,
    });
    const page = (data.product as { variants: Page<VariantNode> } | null)?.variants;
    if (!page) break; // the product went away meanwhile
    out.push(...page.nodes);
    more = page.pageInfo.hasNextPage;
    after = page.pageInfo.endCursor;
  }
  return out;
}

/** Every variant of the store, a page of products at a time (`onPage` gets each page's variants in order). */
export async function readStoreCatalog(ctx: ConnectorContext, onPage: (rows: StoreVariantRow[], products: number) => Promise<void>): Promise<void> {
  let after: string | null = null;
  for (let more = true; more;) {
    const data = await askStore(ctx, {
      name: 'SvcCatalogPage',
      query: PRODUCTS,
      variables: { first: PRODUCTS_PER_PAGE, after },
      cost: 2 + PRODUCTS_PER_PAGE * (3 + VARIANTS_PER_PRODUCT),
    });
    const page = data.products as Page<ProductNode>;
    const rows: StoreVariantRow[] = [];
    for (const p of page.nodes) rows.push(...rowsOf(p, [...p.variants.nodes, ...(await remainingVariants(ctx, p))]));
    await onPage(rows, page.nodes.length);
    more = page.pageInfo.hasNextPage;
    after = page.pageInfo.endCursor;
  }
}
