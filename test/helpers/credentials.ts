/**
 * Credentials notifications of a test app (svc_credentials, src/auth/credentials-listener.ts): a key
 * verified while one is on its way is not kept, so a test that asserts a key was kept first waits
 * for the notifications of its own setup (users created, keys generated) to arrive.
 */
import type pg from 'pg';
import { keepApiKey, keptApiKey } from '../../src/auth/api-key-cache.js';

let seq = 0;

/** Resolves once a marker NOTIFY sent now reached this process's listener (so did every change committed before it). */
export async function credentialsSettled(pool: pg.Pool, ms = 5000): Promise<void> {
  const marker = `settled-marker-${process.pid}-${++seq}`;
  keepApiKey(marker, 'hash', { type: 'user', id: marker, roles: [], via: 'token' }, 60_000);
  await pool.query(`SELECT pg_notify('svc_credentials', '')`);
  const deadline = Date.now() + ms;
  while (keptApiKey(marker) !== undefined) {
    if (Date.now() > deadline) throw new Error(`no credentials notification arrived within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
