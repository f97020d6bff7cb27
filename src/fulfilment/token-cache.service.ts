/**
 * Access tokens shared by every worker process (ConnectorContext.tokens; rxpartner's OAuth JWT):
 * kept in partner_tokens, encrypted with the service key, used until `marginSeconds` before they
 * expire. One process at a time refreshes a key, under a transaction-scoped advisory lock it only
 * tries (so a waiting process holds no connection while it waits); the others read what it stored.
 * A refused token is dropped only while it is still the cached one, so one process's 401 never
 * throws away the token another process has just fetched.
 */
import { execute, selectOne, withTransaction, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { sha256Hex } from '../shared/crypto.js';
import { runtime } from '../shared/runtime.js';
import type { TokenCache } from './connector.js';
import { PartnerToken } from './partner-token.model.js';

const sql = once(() => {
  const n = sqlFor({ t: PartnerToken });
  return {
    read: n(`SELECT {t:tokenEnc} AS token_enc FROM {@t} WHERE {t:cacheKey} = $1 AND {t:expiresAt} > clock_timestamp() + make_interval(secs => $2)`),
    store:
      n(`INSERT INTO {@t} ({t:cacheKey}, {t:partner}, {t:tokenEnc}, {t:tokenHash}, {t:expiresAt}, {t:updatedAt}) VALUES ($1, $2, $3, $4, $5, clock_timestamp())
       ON CONFLICT ({t:cacheKey}) DO UPDATE SET {t:tokenEnc} = EXCLUDED.{t:tokenEnc}, {t:tokenHash} = EXCLUDED.{t:tokenHash},
         {t:expiresAt} = EXCLUDED.{t:expiresAt}, {t:updatedAt} = EXCLUDED.{t:updatedAt}`),
    drop: n(`DELETE FROM {@t} WHERE {t:cacheKey} = $1 AND {t:tokenHash} = $2`),
  };
});

async function cached(key: string, marginSeconds: number, opts: { transaction?: Tx } = {}): Promise<string | undefined> {
  const row = await selectOne<{ token_enc: string }>(sql().read, [key, marginSeconds], opts);
  return row ? runtime().cipher.decrypt(row.token_enc) : undefined;
}

/** The refresher's turn: under the key's lock, the token another process stored meanwhile, else a fetched one (stored). */
async function refresh(
  partner: string,
  key: string,
  marginSeconds: number,
  fetch: () => Promise<{ token: string; expiresAt: Date }>,
): Promise<string | undefined> {
  return withTransaction(undefined, async (transaction) => {
    const lock = await selectOne<{ locked: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked`, [`svc:partner-token:${key}`], {
      transaction,
    });
    if (!lock?.locked) return undefined;
    const stored = await cached(key, marginSeconds, { transaction });
    if (stored) return stored;
    const fresh = await fetch();
    await execute(sql().store, [key, partner, runtime().cipher.encrypt(fresh.token), sha256Hex(fresh.token), fresh.expiresAt], { transaction });
    return fresh.token;
  });
}

/** The token cache of a partner's connector. */
export function tokenCache(partner: string): TokenCache {
  return {
    async get(key, fetch, opts) {
      const deadline = Date.now() + (opts.waitMs ?? runtime().config.partners.timeoutMs + 5_000);
      for (;;) {
        const token = (await cached(key, opts.marginSeconds)) ?? (await refresh(partner, key, opts.marginSeconds, fetch));
        if (token !== undefined) return token;
        if (Date.now() > deadline) throw new Error(`${partner}: another process is still fetching the access token`);
        // another process is refreshing: its answer is read again shortly (jittered, so waiters do not ask together)
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.floor(Math.random() * 100)));
      }
    },
    async drop(key, token) {
      await execute(sql().drop, [key, sha256Hex(token)]);
    },
  };
}
