/**
 * The shop's catalog as tests and the bench shape it: a generated catalog of any size (products ×
 * variants, stable ids and SKUs), and the `/_sim/catalog` controls: read the counts, replace the
 * catalog with a generated one, change one variant's price, title or stock (a sync must notice exactly that).
 */
import { SimError } from '../shared/types.js';
import type { ControlRoute, SimRequest } from '../shared/http.js';
import type { Shop } from './store.shop.js';
import { buildCatalog, type CatalogProduct } from './store.state.js';

/** Generated products are numbered after the default catalog's, so their ids never meet. */
export const GENERATED_FIRST = 1000;

/** `products` products of `variantsPerProduct` variants each: SKU GEN-<product>-<variant>. */
export function generatedCatalog(products: number, variantsPerProduct: number): CatalogProduct[] {
  return Array.from({ length: products }, (_, i) => ({
    title: `Generated Supply ${String(i + 1).padStart(5, '0')}`,
    variants: Array.from({ length: variantsPerProduct }, (_v, k) => ({
      sku: `GEN-${i + 1}-${k + 1}`,
      title: variantsPerProduct > 1 ? `Size ${k + 1}` : undefined,
      price: (5 + ((i * 7 + k) % 90) + 0.25).toFixed(2),
      available: (i * 13 + k * 5) % 400,
    })),
  }));
}

function bodyOf(req: SimRequest): Record<string, unknown> {
  if (req.raw.length === 0) return {};
  const v = req.json();
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new SimError('the control body must be a JSON object', 400);
  return v as Record<string, unknown>;
}

const counts = (shop: Shop) => ({ products: shop.products.length, variants: shop.products.reduce((n, p) => n + p.variants.length, 0) });

export function catalogControls(shop: Shop): ControlRoute[] {
  return [
    { method: 'GET', path: 'catalog', handle: () => counts(shop) },
    {
      method: 'POST',
      path: 'catalog/generate',
      handle: (req) => {
        const b = bodyOf(req);
        const products = Number(b.products);
        const variants = Number(b.variants_per_product ?? 1);
        if (!Number.isInteger(products) || products < 0 || products > 100_000) throw new SimError('products must be an integer 0..100000', 400);
        if (!Number.isInteger(variants) || variants < 1 || variants > 100) throw new SimError('variants_per_product must be an integer 1..100', 400);
        shop.products = buildCatalog(generatedCatalog(products, variants), GENERATED_FIRST);
        return counts(shop);
      },
    },
    {
      method: 'POST',
      path: 'catalog/variant',
      handle: (req) => {
        const b = bodyOf(req);
        const v = shop.products.flatMap((p) => p.variants).find((x) => x.sku === b.sku || x.id === b.id);
        if (!v) throw new SimError('no variant with that sku or id', 404);
        if (typeof b.price === 'string') v.price = b.price;
        if (typeof b.title === 'string') v.title = b.title;
        if (typeof b.available === 'number') v.available = v.onHand = b.available;
        return { id: v.id, sku: v.sku, title: v.title, price: v.price, available: v.available };
      },
    },
  ];
}
