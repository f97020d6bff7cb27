/**
 * Credentials notifications of a test app (svc_credentials, src/auth/credentials-listener.ts): a key
 * verified while one is on its way is not kept, so a test that asserts a key was kept first waits
 * for the notifications of its own setup (users created, keys generated) to arrive.
 */
import type pg from 'pg';
import { credentialsNoticeArrived } from '../../src/auth/credentials-listener.js';

let seq = 0;

/**
 * Resolves once a marker NOTIFY sent now reached this process's listener: notifications arrive in
 * commit order, so every change committed before it has too. It waits for the marker's own payload:
 * an earlier change's notification arriving first would otherwise end the wait while a later one is
 * still on its way (the race CI met: the first request's key was then not kept).
 */
export async function credentialsSettled(pool: pg.Pool, ms = 5000): Promise<void> {
  const marker = `settled-marker-${process.pid}-${++seq}`;
  const arrived = credentialsNoticeArrived(marker);
  await pool.query(`SELECT pg_notify('svc_credentials', $1)`, [marker]);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no credentials notification arrived within ${ms} ms`)), ms);
  });
  try {
    await Promise.race([arrived, late]);
  } finally {
    clearTimeout(timer);
  }
}
