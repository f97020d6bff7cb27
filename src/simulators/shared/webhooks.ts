/**
 * Webhook delivery from a simulator to the service: one POST of the exact bytes that were signed,
 * a 5 s answer deadline (the spec's limit), and, when the receiver fails, a few retries in the
 * background with the same bytes and headers (real partners retry with the original payload).
 */
import type { SimDelivery } from './types.js';

const RETRY_AFTER_MS = [1_000, 5_000, 25_000];

export interface Outgoing {
  /** default: the simulator's webhookUrl */
  url?: string;
  event: string;
  ref: string;
  body: string;
  headers: Record<string, string>;
}

export class WebhookSender {
  private readonly log: SimDelivery[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly url: string | undefined) {}

  /** Sends once and waits for that attempt; failed attempts are retried later without waiting. */
  async send(out: Outgoing): Promise<SimDelivery | undefined> {
    const url = out.url ?? this.url;
    if (!url) return undefined;
    return this.attempt(url, out, 1);
  }

  deliveries(): SimDelivery[] {
    return this.log.map((d) => ({ ...d, headers: { ...d.headers } }));
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private async attempt(url: string, out: Outgoing, attempt: number): Promise<SimDelivery> {
    const entry: SimDelivery = { event: out.event, ref: out.ref, url, attempt, status: 0, at: new Date().toISOString(), body: out.body, headers: out.headers };
    this.log.push(entry);
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...out.headers },
        body: out.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(5_000),
      });
      entry.status = res.status;
      await res.arrayBuffer().catch(() => undefined);
    } catch (err) {
      entry.error = (err as Error).message;
    }
    if ((entry.status < 200 || entry.status > 299) && attempt <= RETRY_AFTER_MS.length && !this.closed) {
      const t = setTimeout(
        () => {
          this.timers.delete(t);
          if (!this.closed) void this.attempt(url, out, attempt + 1);
        },
        RETRY_AFTER_MS[attempt - 1],
      );
      t.unref();
      this.timers.add(t);
    }
    return { ...entry };
  }
}
