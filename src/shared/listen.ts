/**
 * A dedicated LISTEN connection (outside the pool: a pooled connection would stop listening when it
 * goes back). It tells its owner when it is listening, when it is not (a lost connection, a failed
 * connect) and each notification; it reconnects with a backoff (0.25 s doubling to 5 s) until closed.
 * Used by svc serve for svc_credentials (src/auth/credentials-listener.ts).
 */
import pg from 'pg';
import { runtime } from './runtime.js';
import { within } from './within.js';

export interface ChannelEvents {
  /** LISTEN is in effect: from here every committed NOTIFY on the channel reaches onNotify */
  listening(): void;
  /** the connection is gone (or never came): notifications may be missed until listening() again */
  lost(): void;
  notified(payload: string | undefined): void;
}

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5000;

export class ChannelListener {
  /** the connection being opened or listening; events of any other (an old one ending late) are ignored */
  private client?: pg.Client;
  private live = false;
  private open = false;
  private retryMs = FIRST_RETRY_MS;
  private retry?: NodeJS.Timeout;

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly events: ChannelEvents,
  ) {}

  /** Connects and listens; a failure is logged and retried (the promise resolves after the first attempt either way). */
  async start(): Promise<void> {
    this.open = true;
    await this.connect();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: `svc-listen-${process.pid}`, keepAlive: true });
    client.on('notification', (msg) => msg.channel === this.channel && this.events.notified(msg.payload));
    client.on('error', (err) => this.drop(client, err, 'lost its connection'));
    client.on('end', () => this.drop(client, undefined, 'connection ended'));
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${pg.escapeIdentifier(this.channel)}`);
    } catch (err) {
      return this.drop(client, err, 'could not listen');
    }
    // a connect that completes after close() is ended at once, never left holding the process open
    if (!this.open || client !== this.client) return void (await client.end().catch(() => undefined));
    this.live = true;
    this.retryMs = FIRST_RETRY_MS;
    this.events.listening();
  }

  private drop(client: pg.Client, err: unknown, what: string): void {
    if (client !== this.client) return;
    this.client = undefined;
    this.live = false;
    this.events.lost();
    void client.end().catch(() => undefined);
    if (!this.open) return;
    runtime().logger.warn({ err: (err as Error | undefined)?.message, channel: this.channel, retryMs: this.retryMs }, `LISTEN ${what}; retrying`);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (this.open) void this.connect();
    }, this.retryMs);
    this.retry.unref();
    this.retryMs = Math.min(MAX_RETRY_MS, this.retryMs * 2);
  }

  /** Stops listening: the connection is ended within `boundMs` (else left to the process's exit). */
  async close(boundMs = 500): Promise<void> {
    this.open = false;
    clearTimeout(this.retry);
    this.retry = undefined;
    const client = this.live ? this.client : undefined;
    this.client = undefined;
    this.live = false;
    this.events.lost();
    if (client)
      await within(
        client.end().catch(() => undefined),
        Date.now() + boundMs,
      );
  }
}
