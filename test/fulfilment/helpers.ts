/** What the connector tests share: the otcpartner simulator's credentials, configuring them, a worker, partner order rows, a proxy that loses or withholds the partner's answers. */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { systemActor } from '../../src/auth/actor.js';
import { setPartnerCredentials } from '../../src/fulfilment/credentials/credentials.service.js';
import { OutboxWorker } from '../../src/jobs/outbox-worker.js';
import { startOtcpartnerSimulator, type OtcOptions, type PartnerKey, type RunningSimulator } from '../../src/simulators/index.js';
import type { PartnerFleet } from '../../src/simulators/fleet.js';
import type { TestApp } from '../helpers/app.js';

export const OTC = { apiKey: 'otc-api-key-0123456789', webhookKey: 'otc-webhook-key-0123456789', webhookSecret: 'otc-webhook-secret-0123456789' };

export const ops = systemActor('test:operations');

/** The otcpartner simulator, its webhooks sent to the service under test. */
export function otcSimulator(app: TestApp, options: Partial<OtcOptions> = {}): Promise<RunningSimulator> {
  return startOtcpartnerSimulator({ credentials: OTC, webhookUrl: `${app.url}/api/method/svc.otcpartner.webhook`, ...options });
}

/** Stores the otcpartner credentials of a simulator (the secret only when asked). */
export async function configureOtc(url: string, opts: { secret?: boolean } = {}): Promise<void> {
  await setPartnerCredentials(ops, 'otcpartner', {
    otc_api_url: url,
    otc_api_key: OTC.apiKey,
    otc_webhook_key: OTC.webhookKey,
    ...(opts.secret === false ? {} : { otc_webhook_secret: OTC.webhookSecret }),
  });
}

/** An in-process worker over the test database, for the given outbox kinds (default: every handled kind). */
export async function startWorker(app: TestApp, kinds?: string[]): Promise<OutboxWorker> {
  const worker = new OutboxWorker({ databaseUrl: app.dbUrl, ...app.config.worker, kinds });
  await worker.start();
  return worker;
}

export interface PartnerOrderDb {
  id: number;
  partner: string;
  status: string;
  dedupe_key: string;
  partner_reference: string | null;
  partner_status: string | null;
  tracking_number: string | null;
  attempts: number;
  last_error: string | null;
  lines: { idx: number; item_code: string; partner_sku: string; qty: number }[];
}

export async function partnerOrdersOf(db: pg.Client, salesOrder: string): Promise<PartnerOrderDb[]> {
  return (
    await db.query(
      `SELECT id::int, partner, status, dedupe_key, partner_reference, partner_status, tracking_number, attempts, last_error, lines FROM partner_orders WHERE sales_order = $1 ORDER BY partner`,
      [salesOrder],
    )
  ).rows;
}

/** The order's otc_* fields as stored. */
export async function otcFields(db: pg.Client, salesOrder: string): Promise<Record<string, string | null>> {
  return (
    await db.query(
      `SELECT status, otc_reference, otc_transaction_id, otc_status, otc_tracking_number, otc_tracking_url, otc_carrier, otc_sync_date FROM sales_orders WHERE name = $1`,
      [salesOrder],
    )
  ).rows[0];
}

/** Makes a partner order's scheduled retry due now (time is not waited for). */
export async function dueNow(db: pg.Client, kind: string): Promise<void> {
  await db.query(`UPDATE outbox SET next_attempt_at = now() WHERE kind = $1 AND status = 'pending'`, [kind]);
}

export interface PartnerProxy {
  url: string;
  /** the next `n` POSTs reach the partner, whose answer is then dropped (the connection is cut) */
  loseNext(n: number): void;
  lost(): number;
  /** the next POST reaches the partner, whose answer is withheld until released or closed (the caller never hears back): resolves with the request body */
  holdNext(): Promise<Buffer>;
  /** sends the withheld answers after all (a slow partner rather than a lost answer) */
  releaseHeld(): void;
  close(): Promise<void>;
}

/** A pass-through to a simulator that can lose or withhold answers: the partner has the order, we never hear back (the crash window). */
export async function partnerProxy(target: string): Promise<PartnerProxy> {
  let toLose = 0;
  let lost = 0;
  let hold: ((body: Buffer) => void) | undefined;
  const held: { res: ServerResponse; status: number; headers: IncomingMessage['headers']; body: Buffer }[] = [];
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', target);
      const out = httpRequest(url, { method: req.method, headers: { ...req.headers, host: url.host } }, (answer) => {
        const back: Buffer[] = [];
        answer.on('data', (c: Buffer) => back.push(c));
        answer.on('end', () => {
          if (hold && req.method === 'POST') {
            held.push({ res, status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(back) });
            const resolve = hold;
            hold = undefined;
            resolve(body);
            return;
          }
          if (toLose > 0 && req.method === 'POST') {
            toLose--;
            lost++;
            res.socket?.destroy();
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(back));
        });
      });
      out.end(body);
    });
  };
  const server: Server = createServer(forward);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    loseNext: (n) => {
      toLose = n;
    },
    lost: () => lost,
    holdNext: () => new Promise<Buffer>((resolve) => (hold = resolve)),
    releaseHeld: () => {
      for (const h of held.splice(0)) h.res.writeHead(h.status, h.headers).end(h.body);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const h of held.splice(0)) h.res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Stores every partner's credentials pointing at the fleet's simulators (values may be overridden per partner, e.g. a proxy's URL). */
export async function configureFleet(fleet: PartnerFleet, overrides: Partial<Record<PartnerKey, Record<string, string>>> = {}): Promise<void> {
  for (const [partner, values] of Object.entries(fleet.credentials) as [PartnerKey, Record<string, string>][])
    await setPartnerCredentials(ops, partner, { ...values, ...overrides[partner] });
}
