/**
 * Nonces of signed partner webhooks (table partner_webhook_nonces): the intake claims a delivery's
 * nonce in the transaction that stores its events, so a delivery reusing a nonce stores nothing, and
 * a failed store never burns the nonce of the partner's own retry. Expired nonces are claimable
 * again (their timestamp can no longer pass the window) and are dropped by the housekeeping job.
 */
import { execute, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { PartnerWebhookNonce } from './partner-webhook-nonce.model.js';

const sql = once(() => {
  const n = sqlFor({ w: PartnerWebhookNonce });
  return {
    claim: n(`INSERT INTO {@w} ({w:partner}, {w:nonce}, {w:expiresAt}) VALUES ($1, $2, now() + make_interval(secs => $3))
       ON CONFLICT ({w:partner}, {w:nonce}) DO UPDATE SET {w:expiresAt} = EXCLUDED.{w:expiresAt} WHERE {@w}.{w:expiresAt} < now()
       RETURNING 1 AS claimed`),
    purge: n(`DELETE FROM {@w} WHERE {w:expiresAt} < now() RETURNING 1`),
  };
});

/** True when the nonce was not seen within its keep time (now claimed for `keepSeconds`). */
export async function claimWebhookNonce(partner: string, nonce: string, keepSeconds: number, opts: { transaction: Tx }): Promise<boolean> {
  return (await execute(sql().claim, [partner, nonce.slice(0, 200), keepSeconds], opts)).length === 1;
}

/** Drops expired nonces; answers how many. */
export async function purgeWebhookNonces(opts: { transaction?: Tx } = {}): Promise<number> {
  return (await execute(sql().purge, [], opts)).length;
}
