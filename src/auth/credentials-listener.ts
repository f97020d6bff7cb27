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

/**
 * Callers waiting for one payload. Notifications arrive in commit order, so the arrival of a marker
 * sent now means every change committed before it has been applied here; any other notification
 * arriving first says nothing of later commits (the tests' settle waited on "any forget" and raced).
 */
const awaitedPayloads = new Map<string, () => void>();

/** Resolves when a notification with `payload` reaches this process's listener (send it after calling this). */
export function credentialsNoticeArrived(payload: string): Promise<void> {
  return new Promise((resolve) => awaitedPayloads.set(payload, resolve));
}

function onNotice(payload: string | undefined): void {
  forgetApiKeys();
  const waiter = payload ? awaitedPayloads.get(payload) : undefined;
  if (!waiter) return;
  awaitedPayloads.delete(payload!);
  waiter();
}

/** Starts listening (resolves after the first attempt; a failure keeps the cache off and retries). */
export async function listenForCredentialChanges(databaseUrl: string): Promise<{ close(): Promise<void> }> {
  apiKeysListening(false); // nothing kept until LISTEN is in effect
  const listener = new ChannelListener(databaseUrl, CREDENTIALS_CHANNEL, {
    listening: () => apiKeysListening(true),
    lost: () => apiKeysListening(false),
    notified: onNotice,
  });
  await listener.start();
  return { close: () => listener.close() };
}
