/** The Query root: shop, order, orders (query `tag:` / `name:` / `id:` / `updated_at:` / `created_at:`), products (query `sku:` / `title:`), variant, inventory item, location. */
import { LOCATION } from './store.state.js';
import { connection, itemView, orderView, productView, variantView, type PageArgs } from './store.views.js';
import { variantByItem, variantOf, type Shop } from './store.shop.js';
import type { StoreOrder } from './store.state.js';

type Filter = { key: string; value: string }[];

/** Shopify's search syntax, the small part served here: `key:value` terms, all must match. */
function terms(query: string | null | undefined): Filter {
  return (
    (query ?? '').match(/\S+:(?:'[^']*'|"[^"]*"|\S+)/g)?.map((t) => {
      const i = t.indexOf(':');
      return { key: t.slice(0, i).toLowerCase(), value: t.slice(i + 1).replace(/^['"]|['"]$/g, '') };
    }) ?? []
  );
}

/** `>=2026-…`, `>'2026-…'`, `<…`, `<=…` or a bare time (the same instant) against an ISO time; an unreadable term matches nothing. */
function compareTime(at: string, term: string): boolean {
  const m = /^(>=|<=|>|<)?'?([^']+)'?$/.exec(term);
  const t = m ? Date.parse(m[2]) : NaN;
  const a = Date.parse(at);
  if (!m || !Number.isFinite(t)) return false;
  const op = m[1] ?? '=';
  return op === '>=' ? a >= t : op === '<=' ? a <= t : op === '>' ? a > t : op === '<' ? a < t : a === t;
}

function orderMatches(o: StoreOrder, filter: Filter): boolean {
  return filter.every(({ key, value }) => {
    if (key === 'tag') return o.data.tags.includes(value);
    if (key === 'name') return o.data.name === value || o.data.name === `#${value}`;
    if (key === 'id') return String(o.data.legacyId) === value;
    if (key === 'updated_at' || key === 'created_at') return compareTime(key === 'updated_at' ? o.updatedAt : o.createdAt, value);
    return true; // other terms are not filtered by this simulator
  });
}

export function queryRoot(shop: Shop) {
  const view = (o: StoreOrder) => orderView(o, (id) => variantOf(shop, id));
  return {
    shop: () => ({ id: 'gid://shopify/Shop/1', name: shop.name, myshopifyDomain: shop.domain }),
    order: ({ id }: { id: string }) => {
      const o = shop.book.get(id);
      return o ? view(o) : null;
    },
    orders: (args: PageArgs & { query?: string | null }) =>
      connection(
        shop.book.all().filter((o) => orderMatches(o, terms(args.query))),
        args,
        view,
      ),
    products: (args: PageArgs & { query?: string | null }) => {
      const filter = terms(args.query);
      const products = shop.products.filter((p) =>
        filter.every(({ key, value }) =>
          key === 'sku' ? p.variants.some((v) => v.sku === value) : key === 'title' ? p.title.toLowerCase().includes(value.toLowerCase()) : true,
        ),
      );
      return connection(products, args, productView);
    },
    product: ({ id }: { id: string }) => {
      const p = shop.products.find((x) => x.id === id);
      return p ? productView(p) : null;
    },
    productVariant: ({ id }: { id: string }) => {
      const found = variantOf(shop, id);
      return found ? variantView(found.v, () => found.p) : null;
    },
    inventoryItem: ({ id }: { id: string }) => {
      const v = variantByItem(shop, id);
      return v ? itemView(v) : null;
    },
    location: ({ id }: { id: string }) => (id === LOCATION.id ? LOCATION : null),
  };
}
