/**
 * The outbox's vocabulary and its handler registry: what a row, an entry and an attempt's outcome are,
 * and which handler (and bulkhead lanes) each kind runs with. src/modules.ts registers the handlers.
 */

export interface OutboxEntry {
  kind: string;
  topic?: string;
  target?: string;
  payload: unknown;
  maxAttempts?: number;
  /** Delay before the first attempt. */
  delaySeconds?: number;
}

export interface OutboxRow {
  id: number;
  delivery_id: string;
  kind: string;
  topic: string | null;
  target: string | null;
  payload: Record<string, unknown>;
  status: 'pending' | 'running' | 'done' | 'failed';
  attempts: number;
  max_attempts: number;
  next_attempt_at: Date;
  created_at: Date;
  /** the trace context of the work that wrote the row (null: tracing was off) */
  traceparent: string | null;
}

export interface AttemptOutcome {
  ok: boolean;
  responseCode?: number | null;
  excerpt?: string | null;
  error?: string | null;
  /** Seconds until the next attempt; null or undefined = the handler's default schedule. */
  retryInSeconds?: number | null;
  /** Stop retrying whatever attempts remain (a permanent failure). */
  giveUp?: boolean;
  /**
   * Not an attempt: nothing was sent (e.g. a partner's rate budget was spent), so the row waits
   * `retryInSeconds` (real time, never scaled) and keeps its attempts; no attempt row is written.
   */
  deferred?: boolean;
  /**
   * The row ends (done, never failed or retried) though the attempt did not succeed: its work was
   * handed to a later row (a status poll that did not reach its partner is asked again at the next
   * poll round). The attempt is recorded as it went.
   */
  handedOff?: boolean;
}

export interface AttemptContext {
  attempt: number;
  workerId: string;
  signal: AbortSignal;
  /**
   * When the claim's lease ends at the earliest (this process's clock, Date.now() units: the time the
   * claim was sent plus its lease), if the caller knows; a handler whose attempt fits in it need not
   * extend the lease.
   */
  leaseUntil?: number;
}

export interface OutboxHandler {
  kind: string;
  run(row: OutboxRow, ctx: AttemptContext): Promise<AttemptOutcome>;
  /** Seconds before attempt `nextAttempt` (2, 3, …) when the outcome names none. */
  retryDelaySeconds?(nextAttempt: number): number;
  /**
   * The bulkhead lanes of this kind: a row whose topic names one (a partner) runs in that lane, whose
   * share of a worker's slots it shares with the other kinds' rows of the same lane (claimDue).
   */
  lanes?: readonly string[];
}

const handlers = new Map<string, OutboxHandler>();

/** Registers the handler of one outbox kind (called once per process, from src/modules.ts). */
export function registerOutboxHandler(handler: OutboxHandler): void {
  handlers.set(handler.kind, handler);
}

/** The kinds this process can run: those with a registered handler (and among `only`, when given). */
export function handledKinds(only?: string[]): string[] {
  const kinds = [...handlers.keys()];
  return only ? kinds.filter((k) => only.includes(k)) : kinds;
}

export function outboxHandler(kind: string): OutboxHandler | undefined {
  return handlers.get(kind);
}

/** Default schedule: about 60 s, then about 5 minutes (the webhook schedule of the spec), then doubling. */
export function defaultRetryDelaySeconds(nextAttempt: number): number {
  return nextAttempt <= 2 ? 60 : nextAttempt === 3 ? 300 : 300 * 2 ** (nextAttempt - 3);
}

/** The bulkhead lane a claimed row runs in (its topic, when its handler names it a lane), else undefined. */
export function laneOf(row: Pick<OutboxRow, 'kind' | 'topic'>): string | undefined {
  const lanes = handlers.get(row.kind)?.lanes;
  return row.topic !== null && lanes?.includes(row.topic) ? row.topic : undefined;
}
