/** What the connector tests share: the otcpartner simulator's credentials, configuring them, a worker, partner order rows. */
import type pg from 'pg';
import { systemActor } from '../../src/auth/actor.js';
import { setPartnerCredentials } from '../../src/connectors/credentials/credentials.service.js';
import { OutboxWorker } from '../../src/jobs/outbox-worker.js';
import { startOtcpartnerSimulator, type OtcOptions, type RunningSimulator } from '../../src/simulators/index.js';
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
