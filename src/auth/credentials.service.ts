/**
 * Users' credentials: password login sessions (sid cookie + CSRF token) and API key/secret pairs.
 * Secrets are stored hashed: passwords with scrypt, API secrets (high-entropy) with a peppered HMAC.
 */
import { execute, selectOne, withTransaction, type Tx } from '../db/sequelize.js';
import { prepare, runPreparedOne } from '../db/prepared.js';
import { AuthenticationError, NotFoundError } from '../shared/errors.js';
import { hmacHex, randomToken, safeEqual, sha256Hex, verifyPassword } from '../shared/crypto.js';
import { clearBucket, hitSlidingStart, peekSlidingStart } from '../shared/rate-limit.js';
import { runtime } from '../shared/runtime.js';
import type { Actor, Role } from './actor.js';
import { authorize, authorizeApiKeysFor } from './policy/index.js';

interface UserRow {
  id: string;
  email: string;
  full_name: string;
  roles: Role[];
  enabled: boolean;
  customer: string | null;
  sales_person: string | null;
  vendor: string | null;
  territory: string | null;
  team: string[] | null;
}

const actorSelect = (extra = '') => `
  SELECT ${extra}u.id, u.email, u.full_name, u.roles, u.enabled, u.customer, u.sales_person, u.vendor, sp.territory,
         CASE WHEN sp.is_manager THEN (
           WITH RECURSIVE team AS (
             SELECT s0.name FROM sales_persons s0 WHERE s0.name = sp.name
             UNION SELECT s.name FROM sales_persons s JOIN team ON s.parent_sales_person = team.name)
           SELECT array_agg(name) FROM team) END AS team
    FROM users u LEFT JOIN sales_persons sp ON sp.name = u.sales_person`;
const ACTOR_SELECT = actorSelect();

function toActor(row: UserRow, via: Actor['via']): Actor {
  return {
    type: 'user',
    id: row.id,
    email: row.email,
    fullName: row.full_name,
    roles: row.roles,
    customer: row.customer,
    salesPerson: row.sales_person,
    territory: row.territory,
    team: row.team ?? undefined,
    vendor: row.vendor,
    via,
  };
}

/** Loads the actor of an enabled user (fresh on every request: a disabled user is out at once). */
export async function loadUserActor(userId: string, via: Actor['via'], opts: { transaction?: Tx } = {}): Promise<Actor | undefined> {
  const row = await selectOne<UserRow>(`${ACTOR_SELECT} WHERE u.id = $1`, [userId], opts);
  return row && row.enabled ? toActor(row, via) : undefined;
}

function pepper(secret: string): string {
  return hmacHex(runtime().config.secretKey, secret);
}

// ---- sessions ------------------------------------------------------------------------------------

export interface LoginResult {
  sid: string;
  csrfToken: string;
  actor: Actor;
  maxAgeSeconds: number;
}

/** Failed logins of one account, within a window from the first failure, before it is locked out. */
export const LOGIN_FAILURES = 10;
export const LOGIN_WINDOW_SECONDS = 15 * 60;

/**
 * Checks usr/pwd and opens a session, for every caller: an account with 10 failed logins within
 * 15 minutes of the first is refused (401 with Retry-After, even with the right password) until the
 * window ends; a success clears the count. Unknown user and wrong password answer alike (same time).
 */
export async function login(usr: string, pwd: string, meta: { ip?: string; userAgent?: string } = {}): Promise<LoginResult> {
  const bucket = usr ? `login:${usr.toLowerCase()}` : undefined;
  const locked = bucket ? await peekSlidingStart(bucket) : undefined;
  if (locked && locked.count >= LOGIN_FAILURES) {
    throw new AuthenticationError('Too many failed logins; try again later').withHeader('Retry-After', String(locked.resetInSeconds));
  }
  try {
    const result = await openSession(usr, pwd, meta);
    if (bucket) await clearBucket(bucket);
    return result;
  } catch (err) {
    if (bucket && err instanceof AuthenticationError) await hitSlidingStart(bucket, LOGIN_WINDOW_SECONDS);
    throw err;
  }
}

async function openSession(usr: string, pwd: string, meta: { ip?: string; userAgent?: string }): Promise<LoginResult> {
  if (!usr || !pwd) throw new AuthenticationError('Incomplete login details');
  const user = await selectOne<{ id: string; password_hash: string | null; enabled: boolean }>(`SELECT id, password_hash, enabled FROM users WHERE lower(email) = lower($1)`, [usr]);
  const ok = await verifyPassword(pwd, user?.password_hash);
  if (!user || !ok) throw new AuthenticationError('Invalid login credentials');
  if (!user.enabled) throw new AuthenticationError('User disabled or missing');
  const { session } = runtime().config;
  const sid = randomToken(32);
  const csrfToken = randomToken(24);
  await withTransaction(undefined, async (transaction) => {
    await execute(
      `INSERT INTO sessions (id_hash, user_id, csrf_token, ip, user_agent, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6::float8 * 60))`,
      [sha256Hex(sid), user.id, csrfToken, meta.ip ?? null, meta.userAgent?.slice(0, 200) ?? null, session.idleMinutes],
      { transaction },
    );
    await execute(`UPDATE users SET last_login_at = now() WHERE id = $1`, [user.id], { transaction });
  });
  const actor = (await loadUserActor(user.id, 'session'))!;
  return { sid, csrfToken, actor: { ...actor, sessionId: sha256Hex(sid) }, maxAgeSeconds: session.absoluteHours * 3600 };
}

/**
 * Resumes a session: valid while neither the idle timeout nor the absolute lifetime has passed.
 * Activity slides the idle expiry (written at most every 30 s, or half a shorter timeout, to spare the database).
 */
export async function resumeSession(sid: string): Promise<{ actor: Actor; csrfToken: string } | undefined> {
  const { session } = runtime().config;
  const idHash = sha256Hex(sid);
  const row = await selectOne<{ user_id: string; csrf_token: string; stale: boolean }>(
    `SELECT user_id, csrf_token, last_seen_at < now() - LEAST(interval '30 seconds', make_interval(secs => $3::float8 * 30)) AS stale FROM sessions
      WHERE id_hash = $1 AND expires_at > now() AND created_at > now() - make_interval(secs => $2::float8 * 3600)`,
    [idHash, session.absoluteHours, session.idleMinutes], // a sub-minute idle timeout slides at half its length
  );
  if (!row) return undefined;
  if (row.stale) {
    await execute(`UPDATE sessions SET last_seen_at = now(), expires_at = now() + make_interval(secs => $2::float8 * 60) WHERE id_hash = $1`, [idHash, session.idleMinutes]);
  }
  const actor = await loadUserActor(row.user_id, 'session');
  return actor ? { actor: { ...actor, sessionId: idHash }, csrfToken: row.csrf_token } : undefined;
}

/** Ends a session (logout). */
export async function endSession(sid: string): Promise<void> {
  await execute(`DELETE FROM sessions WHERE id_hash = $1`, [sha256Hex(sid)]);
}

/** Removes expired sessions (periodic job). */
export async function purgeExpiredSessions(opts: { transaction?: Tx } = {}): Promise<number> {
  const rows = await execute(`DELETE FROM sessions WHERE expires_at < now() RETURNING 1`, [], opts);
  return rows.length;
}

// ---- API keys ------------------------------------------------------------------------------------

/** Generates (or regenerates) the user's API key pair; the secret is returned once and stored hashed. */
export async function generateApiKeys(actor: Actor, target: { userId?: string; email?: string }): Promise<{ api_key: string; api_secret: string; user: string }> {
  authorize(actor, 'create', 'API Key');
  return withTransaction(undefined, async (transaction) => {
    const user = target.userId
      ? await selectOne<{ id: string; email: string }>(`SELECT id, email FROM users WHERE id = $1 FOR UPDATE`, [target.userId], { transaction })
      : await selectOne<{ id: string; email: string }>(`SELECT id, email FROM users WHERE lower(email) = lower($1) FOR UPDATE`, [target.email ?? ''], { transaction });
    if (!user) throw new NotFoundError(`User ${target.email ?? target.userId} not found`);
    authorizeApiKeysFor(actor, user.id); // its own keys; anyone's for an admin or the CLI
    const apiKey = randomToken(12).replace(/[-_]/g, 'x').slice(0, 15).toLowerCase();
    const apiSecret = randomToken(24);
    await execute(
      `INSERT INTO api_keys (user_id, api_key, secret_hash) VALUES ($1, $2, $3)
       ON CONFLICT (user_id) DO UPDATE SET api_key = EXCLUDED.api_key, secret_hash = EXCLUDED.secret_hash, updated_at = now()`,
      [user.id, apiKey, pepper(apiSecret)],
      { transaction },
    );
    return { api_key: apiKey, api_secret: apiSecret, user: user.email };
  });
}

// Runs on every API request: prepared once per connection (planning the team CTE cost ~3× its execution).
const API_KEY_SQL = prepare('svc_api_key_actor', `${actorSelect('k.secret_hash, ')} JOIN api_keys k ON k.user_id = u.id WHERE k.api_key = $1`);

/** Resolves `token <key>:<secret>` to its user actor, or undefined (401). */
export async function resolveApiKey(apiKey: string, apiSecret: string): Promise<Actor | undefined> {
  const row = await runPreparedOne<UserRow & { secret_hash: string }>(API_KEY_SQL, [apiKey]);
  const expected = row?.secret_hash ?? pepper('no-such-key');
  const match = safeEqual(pepper(apiSecret), expected);
  if (!row || !match || !row.enabled) return undefined;
  return toActor(row, 'token');
}
