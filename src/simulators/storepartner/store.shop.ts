/** The simulated shop's state that resolvers share: catalog lookups, orders, counters, idempotency. */
import { createHash } from 'node:crypto';
import { GraphQLError, Kind, type GraphQLResolveInfo } from 'graphql';
import type { OrderBook } from '../shared/orders.js';
import type { Product, StoreOrder, StoreOrderData, Variant } from './store.state.js';

export interface Shop {
  name: string;
  domain: string;
  products: Product[];
  book: OrderBook<StoreOrderData>;
  /** next ids for line items, fulfillment orders, fulfillments, adjustment groups */
  next(): number;
  orderNumber(): number;
  idempotency: Map<string, { digest: string; result: unknown }>;
  /** a webhook for a change that is not a status move (partial fulfillment, new tracking) */
  emit(topic: 'orders/updated' | 'orders/fulfilled' | 'orders/cancelled', order: StoreOrder): Promise<void>;
}

export type UserError = { field: string[] | null; message: string; code: string | null };
export const err = (field: (string | number)[], message: string, code: string): UserError => ({ field: field.map(String), message, code });

export function variantOf(shop: Shop, id: string): { v: Variant; p: Product } | undefined {
  for (const p of shop.products) {
    const v = p.variants.find((x) => x.id === id);
    if (v) return { v, p };
  }
  return undefined;
}

export function variantByItem(shop: Shop, itemId: string): Variant | undefined {
  return shop.products.flatMap((p) => p.variants).find((v) => v.inventoryItemId === itemId);
}

export function orderByFulfillmentOrder(shop: Shop, foGid: string): StoreOrder | undefined {
  return shop.book.all().find((o) => `gid://shopify/FulfillmentOrder/${o.data.fulfillmentOrder.id}` === foGid);
}

export function orderByFulfillment(shop: Shop, fGid: string): StoreOrder | undefined {
  return shop.book.all().find((o) => o.data.fulfillments.some((f) => `gid://shopify/Fulfillment/${f.id}` === fGid));
}

/** The key of the field's `@idempotent(key:)` directive, if it carries one. */
export function idempotencyKey(info: GraphQLResolveInfo): string | undefined {
  const d = info.fieldNodes[0].directives?.find((x) => x.name.value === 'idempotent');
  const arg = d?.arguments?.find((a) => a.name.value === 'key')?.value;
  if (!arg) return undefined;
  if (arg.kind === Kind.STRING) return arg.value;
  if (arg.kind === Kind.VARIABLE) return String(info.variableValues[arg.name.value] ?? '') || undefined;
  return undefined;
}

/**
 * Runs a mutation once per idempotency key: a repeat with the same arguments gets the first
 * result without running again; the same key with other arguments is an error. `required`
 * mutations (inventory changes since 2025-12) fail without the directive.
 */
export function once<T>(shop: Shop, info: GraphQLResolveInfo, args: unknown, required: boolean, run: () => T | Promise<T>): T | Promise<T> {
  const key = idempotencyKey(info);
  if (!key) {
    if (required) throw new GraphQLError(`The @idempotent directive is required for the ${info.fieldName} mutation.`, { extensions: { code: 'BAD_REQUEST' } });
    return run();
  }
  const digest = createHash('sha256')
    .update(`${info.fieldName}\n${JSON.stringify(args)}`)
    .digest('hex');
  const seen = shop.idempotency.get(key);
  if (seen) {
    if (seen.digest !== digest)
      throw new GraphQLError(`The idempotency key ${key} was already used with different arguments.`, {
        extensions: { code: 'IDEMPOTENCY_KEY_PARAMETER_MISMATCH' },
      });
    return seen.result as T;
  }
  const result = run();
  shop.idempotency.set(key, { digest, result }); // a promise too: a concurrent repeat waits for the same run
  return result;
}
