/** What the shipper and peptidepartner tests share: simulator credentials, configuring them, orders for them. */
import type pg from 'pg';
import { setPartnerCredentials } from '../../../src/fulfilment/credentials/credentials.service.js';
import { buildItem, buildOrder } from '../../helpers/factories.js';
import { eventually } from '../../helpers/eventually.js';
import { ops, partnerOrdersOf, type PartnerOrderDb } from '../../fulfilment/helpers.js';

export const SHIPPER = { apiKey: 'shipper-api-key-0123456789', apiSecret: 'shipper-api-secret-0123456789' };
export const PEPTIDE = { apiKey: 'peptide-api-key-0123456789' };
/** The token in the target URL of the marketplace account's webhooks (issue 24). */
export const SHIPPER_WEBHOOK_TOKEN = 'shipper-webhook-token-0123456789abcdefghijklmnopq';
/** The marketplace account's webhook target (path and query). */
export const SHIPPER_HOOK = `/api/method/svc.shipper.webhook?token=${SHIPPER_WEBHOOK_TOKEN}`;

export async function configureShipper(url: string, values: Record<string, string> = {}): Promise<void> {
  await setPartnerCredentials(ops, 'shipper', {
    base_url: url,
    api_key: SHIPPER.apiKey,
    api_secret: SHIPPER.apiSecret,
    webhook_token: SHIPPER_WEBHOOK_TOKEN,
    ...values,
  });
}

export async function configurePeptide(url: string, values: Record<string, string> = {}): Promise<void> {
  await setPartnerCredentials(ops, 'peptidepartner', { peptide_api_url: url, peptide_api_key: PEPTIDE.apiKey, ...values });
}

/** A submitted Sales Order with one line mapped to the partner (mapping field → partner product id). */
export async function mappedOrder(mapping: Record<string, string>, qty = 2): Promise<string> {
  const item = await buildItem({ mapping });
  return (await buildOrder({ submitted: true, lines: [{ item_code: item, qty }] })).name;
}

/** The order's one partner order once `done` holds for it. */
export async function partnerOrderWhen(
  db: pg.Client,
  name: string,
  done: (p: PartnerOrderDb) => boolean,
  message: string,
  timeoutMs?: number,
): Promise<PartnerOrderDb> {
  return eventually(
    async () => {
      const [p] = await partnerOrdersOf(db, name);
      return p && done(p) ? p : undefined;
    },
    { message, timeoutMs },
  );
}

export async function orderFields(db: pg.Client, name: string, prefix: 'shipper' | 'peptide'): Promise<Record<string, string | null>> {
  const cols =
    prefix === 'shipper'
      ? 'shipper_order_id, shipper_status, shipper_tracking_number, shipper_carrier, shipper_tracking_url, shipper_label_url, shipper_sync_date'
      : 'peptide_order_id, peptide_status, peptide_tracking_number, peptide_carrier, peptide_tracking_url, peptide_shipping_tier, peptide_sync_date';
  return (await db.query(`SELECT status, ${cols} FROM sales_orders WHERE name = $1`, [name])).rows[0];
}
