/** Where a vendor's webhooks go: its Webhook URL and the (encrypted) secret they are signed with (plugged into webhooks' ports by src/modules.ts). */
import type { WebhookTarget } from '../webhooks/webhook-ports.js';
import { VendorProfile } from './vendor-profile.model.js';

/** The vendor's webhook target, read now (a rotated secret applies to the next attempt); undefined: no such vendor. */
export async function webhookTargetOf(vendor: string): Promise<WebhookTarget | undefined> {
  const v = await VendorProfile.scope('withSecrets').findByPk(vendor, { attributes: ['name', 'webhookUrl', 'webhookSecretEnc'] });
  return v ? { name: v.name, webhook_url: v.webhookUrl, webhook_secret_enc: v.webhookSecretEnc } : undefined;
}
