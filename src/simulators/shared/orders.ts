/**
 * A simulator's orders and how they move: a fixed forward progression (one step per advance, or a
 * jump to a named status), side statuses reachable only by name (cancelled, on hold…), and an
 * optional timer that moves each order one step every `advanceEveryMs`.
 */
import { SimError, type SimOrder, type SimTracking } from './types.js';

export interface OrderRecord<X> extends SimOrder {
  /** partner-specific state (ShipStation's full order, the peptide channel's order…) */
  data: X;
  updatedAt: string;
}

export interface Progression {
  /** the forward path, first status first */
  steps: string[];
  /** statuses reachable by name only, from any status that is not final */
  side?: string[];
  /** statuses after which nothing moves */
  final: string[];
}

/** What a move does at the partner (tracking, shipments, the webhook); runs after the status changed (awaited when async). */
export type OnMove<X> = (order: OrderRecord<X>, from: string) => void | Promise<void>;

export class OrderBook<X> {
  private readonly orders = new Map<string, OrderRecord<X>>();
  private readonly byKey = new Map<string, string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly progression: Progression,
    private readonly onMove: OnMove<X>,
    private readonly advanceEveryMs?: number,
  ) {}

  add(input: { ref: string; dedupeKey: string; status?: string; body: unknown; data: X }): OrderRecord<X> {
    const now = new Date().toISOString();
    const order: OrderRecord<X> = { ...input, status: input.status ?? this.progression.steps[0], createdAt: now, updatedAt: now };
    this.orders.set(order.ref, order);
    if (order.dedupeKey) this.byKey.set(order.dedupeKey, order.ref);
    this.schedule(order);
    return order;
  }

  get(ref: string): OrderRecord<X> | undefined {
    return this.orders.get(ref);
  }

  byDedupeKey(key: string): OrderRecord<X> | undefined {
    const ref = this.byKey.get(key);
    return ref === undefined ? undefined : this.orders.get(ref);
  }

  all(): OrderRecord<X>[] {
    return [...this.orders.values()];
  }

  /** Copies in the shape of the shared contract. */
  list(): SimOrder[] {
    return this.all().map(publicCopy);
  }

  isFinal(order: SimOrder): boolean {
    return this.progression.final.includes(order.status);
  }

  /** One step forward, or to `to` (`ref` may also be the dedupe key); runs the partner's side effects (and webhook) before resolving. */
  async advance(ref: string, to?: string): Promise<SimOrder> {
    const order = this.orders.get(ref) ?? this.byDedupeKey(ref); // the Sales Order name works too
    if (!order) throw new SimError(`no order ${ref}`, 404);
    const target = to ?? this.next(order);
    const { steps, side = [] } = this.progression;
    if (!steps.includes(target) && !side.includes(target)) throw new SimError(`unknown status ${target}; known: ${[...steps, ...side].join(', ')}`, 400);
    if (this.isFinal(order)) throw new SimError(`order ${ref} is ${order.status}: it cannot move any more`, 409);
    if (steps.includes(target) && steps.includes(order.status) && steps.indexOf(target) <= steps.indexOf(order.status)) {
      throw new SimError(`order ${ref} is ${order.status}: ${target} would go backwards`, 409);
    }
    return this.move(order, target);
  }

  /** Sets a status without the forward check (the partner's own API did it, e.g. a cancel call). */
  async move(order: OrderRecord<X>, status: string): Promise<SimOrder> {
    const from = order.status;
    order.status = status;
    order.updatedAt = new Date().toISOString();
    await this.onMove(order, from);
    this.schedule(order);
    return publicCopy(order);
  }

  setTracking(order: OrderRecord<X>, tracking: SimTracking): void {
    order.tracking = tracking;
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private next(order: SimOrder): string {
    const { steps } = this.progression;
    const i = steps.indexOf(order.status);
    if (i === -1 || i === steps.length - 1) throw new SimError(`order ${order.ref} is ${order.status}: no next status`, 409);
    return steps[i + 1];
  }

  private schedule(order: OrderRecord<X>): void {
    if (!this.advanceEveryMs || this.closed) return;
    const { steps } = this.progression;
    const i = steps.indexOf(order.status);
    if (this.isFinal(order) || i === -1 || i === steps.length - 1) return;
    const at = order.status;
    const t = setTimeout(() => {
      this.timers.delete(t);
      // moved meanwhile by a command: that move scheduled its own next step
      if (order.status === at && !this.closed) this.advance(order.ref).catch(() => undefined);
    }, this.advanceEveryMs);
    t.unref();
    this.timers.add(t);
  }
}

function publicCopy<X>(o: OrderRecord<X>): SimOrder {
  const copy: SimOrder = { ref: o.ref, dedupeKey: o.dedupeKey, status: o.status, body: structuredClone(o.body), createdAt: o.createdAt };
  if (o.tracking) copy.tracking = { ...o.tracking };
  return copy;
}
