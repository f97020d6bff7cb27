/**
 * svc serve's ear for credential changes: a dedicated LISTEN svc_credentials connection (started only
 * when SVC_API_KEY_CACHE_MS > 0). The triggers of migration 2026.12.01T05.00.00.credentials-notify
 * notify on every committed change of what a kept API key holds; each notification forgets every
 * kept key of this process. While the connection is down nothing is kept (api-key-cache.ts), and it
 * reconnects with a backoff (shared/listen.ts).
 */
import { ChannelListener } from '../shared/listen.js';
import { apiKeysListening, forgetApiKeys } from './api-key-cache.js';

export const CREDENTIALS_CHANNEL = 'svc_credentials';

/** Starts listening (resolves after the first attempt; a failure keeps the cache off and retries). */
export async function listenForCredentialChanges(databaseUrl: string): Promise<{ close(): Promise<void> }> {
  apiKeysListening(false); // nothing kept until LISTEN is in effect
  const listener = new ChannelListener(databaseUrl, CREDENTIALS_CHANNEL, {
    listening: () => apiKeysListening(true),
    lost: () => apiKeysListening(false),
    notified: () => forgetApiKeys(),
  });
  await listener.start();
  return { close: () => listener.close() };
}
