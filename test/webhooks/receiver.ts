/**
 * A vendor's webhook receiver on loopback (node:http): records every request (headers, raw body,
 * arrival time) and answers as the test scripts it (status, headers, delay, hang forever).
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createHmac } from 'node:crypto';
import { execute } from '../../src/db/sequelize.js';
import { runtime } from '../../src/shared/runtime.js';
import type { OutboxRow } from '../../src/shared/outbox.js';
import { eventually } from '../helpers/eventually.js';
import type { Json } from '../helpers/http.js';

/** An outbox row as `SELECT *` reads it: the worker's row and its last error. */
export type OutboxRecord = OutboxRow & { last_error: string | null };

/** A vendor_api_logs row as the tests read it with SQL (the columns they select). */
export interface ApiLogRow {
  vendor: string;
  direction: string;
  function: string;
  status: string;
  http_status: number | null;
  attempt: number;
  duration_ms: number;
  excerpt: string | null;
  error: string | null;
}

export interface Received {
  at: number;
  headers: IncomingHttpHeaders;
  raw: string;
  body: Json;
  /** when the client closed the connection before an answer (hang tests) */
  closedAt?: number;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
  /** never answer */
  hang?: boolean;
}

export class Receiver {
  readonly requests: Received[] = [];
  connections = 0;
  answer: (req: Received, index: number) => Answer = () => ({ status: 200, body: '{"received":true}' });
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private readonly hanging = new Set<ServerResponse>();
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(raw);
        } catch {
          body = undefined;
        }
        const rec: Received = { at: Date.now(), headers: req.headers, raw, body };
        const index = this.requests.push(rec) - 1;
        const a = this.answer(rec, index);
        res.on('close', () => {
          if (!res.writableEnded) rec.closedAt = Date.now();
        });
        if (a.hang) {
          this.hanging.add(res);
          return;
        }
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(a.status ?? 200, { 'content-type': 'application/json', ...(a.headers ?? {}) });
          res.end(a.body ?? '{"received":true}');
        };
        if (a.delayMs)
          setTimeout(send, a.delayMs); // a slow receiver, as scripted (not a wait)
        else send();
      });
    });
    this.server.on('connection', (s: Socket) => {
      this.connections += 1;
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  get port(): number {
    return Number(new URL(this.url).port);
  }

  /** Resolves once `n` requests arrived (optionally matching `filter`); rejects after `timeoutMs`. */
  waitFor(n: number, timeoutMs = 15_000, filter: (r: Received) => boolean = () => true): Promise<Received[]> {
    return eventually(
      () => {
        const got = this.requests.filter(filter);
        if (got.length < n) throw new Error(`the receiver got ${got.length} of ${n} requests`);
        return got;
      },
      { timeoutMs, intervalMs: 20, message: `${n} requests at the receiver` },
    );
  }

  reset(): void {
    this.requests.length = 0;
    this.connections = 0;
    this.answer = () => ({ status: 200, body: '{"received":true}' });
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

/** The receiver's side of verification: the spec's algorithm over the raw bytes. */
export function expectedSignature(secret: string, raw: string): string {
  return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
}

/**
 * A Vendor Profile with a Webhook URL and secret written straight to the table (the secret encrypted,
 * as the vendor domain does): for states no service produces (a URL stored behind the SSRF check, a
 * URL without a secret). Anything a service can make comes from buildVendor (test/helpers/factories.ts).
 */
export async function createVendor(name: string, url: string | null, secret: string | null): Promise<void> {
  await execute(
    `INSERT INTO vendor_profiles (name, vendor_name, status, api_enabled, webhook_url, webhook_secret_enc)
     VALUES ($1, $2, 'Approved', true, $3, $4)
     ON CONFLICT (name) DO UPDATE SET webhook_url = EXCLUDED.webhook_url, webhook_secret_enc = EXCLUDED.webhook_secret_enc`,
    [name, `${name} Inc.`, url, secret === null ? null : runtime().cipher.encrypt(secret)],
  );
}
