/**
 * Users' credentials: password login sessions (sid cookie + CSRF token) and API key/secret pairs.
 * Secrets are stored hashed: passwords with scrypt, API secrets (high-entropy) with a peppered HMAC.
 */
import { Op, fn, literal } from 'sequelize';
import { execute, selectOne, withTransaction, type Tx } from '../db/sequelize.js';
import { namesOf, once } from '../db/sql-names.js';
import { salesPersonRead } from '../org/org-reads.js';
import { userRead } from '../users/user-reads.js';
import { findLoginUser, lockUser, recordLogin, storePasswordHash } from '../users/users.service.js';
import { apiKeyGeneration, forgetApiKeys, keepApiKey, keptApiKey } from './api-key-cache.js';
import { ApiKey } from './api-key.model.js';
import { Session } from './session.model.js';
import { vendorInGoodStanding } from './vendor-standing.js';
import { AuthenticationError, InputError, NotFoundError, RateLimitError } from '../shared/errors.js';
import { canonicalEmail } from '../shared/email.js';
import { hashPassword, hmacHex, randomToken, safeEqual, sha256Hex, verifyPassword } from '../shared/crypto.js';
import { clearBucket, hitSlidingStart, peekSlidingStart } from '../shared/rate-limit.js';
import { lockedOut, loginFailed, type LoginFailureReason } from '../shared/metrics.js';
import { runtime } from '../shared/runtime.js';
import { matchPeppered } from '../shared/peppered.js';
import type { UserRow } from '../users/user-row.js';
import type { Actor } from './actor.js';
import { authorize, authorizeApiKeysFor } from './policy/index.js';

/** A user row with what its actor adds: its sales person's territory and, for a manager, its team. */
interface ActorRow extends UserRow {
  territory: string | null;
  team: string[] | null;
}

/**
 * The actor of a user: its row, its sales person's territory and, for a manager, its team (the
 * sales-person tree below it). Runs on every authenticated request, so it stays one measured
 * statement over users and sales_persons (tables and columns named by their models).
 */
function actorSelect(extra = ''): string {
  const { t: users, c: u } = namesOf(userRead);
  const { t: salesPersons, c: sp } = namesOf(salesPersonRead);
  return `
  SELECT ${extra}u.${u.id} AS id, u.${u.email} AS email, u.${u.fullName} AS full_name, u.${u.roles} AS roles, u.${u.enabled} AS enabled,
         u.${u.customer} AS customer, u.${u.salesPerson} AS sales_person, u.${u.vendor} AS vendor, sp.${sp.territory} AS territory,
         CASE WHEN sp.${sp.isManager} THEN (
           WITH RECURSIVE team AS (
             SELECT s0.${sp.name} AS name FROM ${salesPersons} s0 WHERE s0.${sp.name} = sp.${sp.name}
             UNION SELECT s.${sp.name} FROM ${salesPersons} s JOIN team ON s.${sp.parentSalesPerson} = team.name)
           SELECT array_agg(name) FROM team) END AS team
    FROM ${users} u LEFT JOIN ${salesPersons} sp ON sp.${sp.name} = u.${u.salesPerson}`;
}
const actorSql = once(() => `${actorSelect()} WHERE u.${namesOf(userRead).c.id} = $1`);

function toActor(row: ActorRow, via: Actor['via']): Actor {
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

/** A vendor's user carries its vendor's standing, read fresh: a suspension stops its users at the next request. */
async function withVendorStanding(actor: Actor, opts: { transaction?: Tx } = {}): Promise<Actor> {
  if (actor.vendor) actor.vendorActive = await vendorInGoodStanding(actor.vendor, opts);
  return actor;
}

/** Loads the actor of an enabled user, fresh (an API key's kept until a change is notified: api-key-cache.ts). */
export async function loadUserActor(userId: string, via: Actor['via'], opts: { transaction?: Tx } = {}): Promise<Actor | undefined> {
  const row = await selectOne<ActorRow>(actorSql(), [userId], opts);
  return row && row.enabled ? withVendorStanding(toActor(row, via), opts) : undefined;
}

function pepper(secret: string, key = runtime().config.secretKey): string {
  return hmacHex(key, secret);
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
 * Refuses a login before any password is checked: 429 when the client address has had too many
 * failures over every account (SVC_LOGIN_ADDRESS_FAILURES), 401 when the account is locked.
 */
async function refuseIfThrottled(accountBucket: string | undefined, addressBucket: string | undefined): Promise<void> {
  const byAddress = addressBucket ? await peekSlidingStart(addressBucket) : undefined;
  if (byAddress && byAddress.count >= runtime().config.login.addressFailures) {
    loginFailed('address_limited');
    throw new RateLimitError('Too many failed logins from this address; try again later', byAddress.resetInSeconds);
  }
  const locked = accountBucket ? await peekSlidingStart(accountBucket) : undefined;
  if (locked && locked.count >= LOGIN_FAILURES) {
    loginFailed('locked');
    throw new AuthenticationError('Too many failed logins; try again later').withHeader('Retry-After', String(locked.resetInSeconds));
  }
}

/** The metric's reason of openSession's refusals (every other refusal: bad_credentials). */
const FAILURE_REASONS: Record<string, LoginFailureReason> = { 'Incomplete login details': 'incomplete', 'User disabled or missing': 'disabled' };

/**
 * Checks usr/pwd and opens a session, for every caller: an account with 10 failed logins within
 * 15 minutes of the first is refused (401 with Retry-After, even with the right password) until the
 * window ends; a success clears the count. The account is keyed by the canonical form of the address
 * (the one the lookup uses). Failures also count per client address, over every account, and a
 * success never clears that count. Unknown user and wrong password answer alike (same time).
 */
export async function login(usr: string, pwd: string, meta: { ip?: string; userAgent?: string } = {}): Promise<LoginResult> {
  const bucket = usr ? `login:${canonicalEmail(usr) ?? usr}` : undefined;
  const addressBucket = meta.ip ? `login-ip:${meta.ip}` : undefined;
  await refuseIfThrottled(bucket, addressBucket);
  try {
    const result = await openSession(usr, pwd, meta);
    if (bucket) await clearBucket(bucket);
    return result;
  } catch (err) {
    if (err instanceof AuthenticationError) {
      loginFailed(FAILURE_REASONS[err.message] ?? 'bad_credentials');
      // a lockout is counted once, by the failure that reaches its limit
      if (bucket && (await hitSlidingStart(bucket, LOGIN_WINDOW_SECONDS)).count === LOGIN_FAILURES) lockedOut();
      const { addressFailures, addressWindowSeconds } = runtime().config.login;
      if (addressBucket && (await hitSlidingStart(addressBucket, addressWindowSeconds)).count === addressFailures) lockedOut();
    }
    throw err;
  }
}

async function openSession(usr: string, pwd: string, meta: { ip?: string; userAgent?: string }): Promise<LoginResult> {
  if (!usr || !pwd) throw new AuthenticationError('Incomplete login details');
  const user = await findLoginUser(usr);
  const ok = await verifyPassword(pwd, user?.password_hash);
  if (!user || !ok) throw new AuthenticationError('Invalid login credentials');
  if (!user.enabled) throw new AuthenticationError('User disabled or missing');
  const { session } = runtime().config;
  const sid = randomToken(32);
  const csrfToken = randomToken(24);
  await withTransaction(undefined, async (transaction) => {
    await Session.create(
      {
        idHash: sha256Hex(sid),
        userId: user.id,
        csrfToken,
        ip: meta.ip ?? null,
        userAgent: meta.userAgent?.slice(0, 200) ?? null,
        // database time, like every other session instant
        createdAt: literal('now()') as unknown as Date,
        lastSeenAt: literal('now()') as unknown as Date,
        expiresAt: literal(`now() + make_interval(secs => ${Number(session.idleMinutes)}::float8 * 60)`) as unknown as Date,
      },
      { transaction, returning: false },
    );
    await recordLogin(user.id, { transaction });
  });
  const actor = (await loadUserActor(user.id, 'session'))!;
  return { sid, csrfToken, actor: { ...actor, sessionId: sha256Hex(sid) }, maxAgeSeconds: session.absoluteHours * 3600 };
}

// Every session request runs these: raw statements in database time, named through the model.
const sessionSql = once(() => {
  const { t, c } = namesOf(Session);
  return {
    resume: `SELECT ${c.userId} AS user_id, ${c.csrfToken} AS csrf_token,
                    ${c.lastSeenAt} < now() - LEAST(interval '30 seconds', make_interval(secs => $3::float8 * 30)) AS stale FROM ${t}
              WHERE ${c.idHash} = $1 AND ${c.expiresAt} > now() AND ${c.createdAt} > now() - make_interval(secs => $2::float8 * 3600)`,
    slide: `UPDATE ${t} SET ${c.lastSeenAt} = now(), ${c.expiresAt} = now() + make_interval(secs => $2::float8 * 60) WHERE ${c.idHash} = $1`,
  };
});

/**
 * Resumes a session: valid while neither the idle timeout nor the absolute lifetime has passed.
 * Activity slides the idle expiry (written at most every 30 s, or half a shorter timeout, to spare the database).
 */
export async function resumeSession(sid: string): Promise<{ actor: Actor; csrfToken: string } | undefined> {
  const { session } = runtime().config;
  const idHash = sha256Hex(sid);
  const row = await selectOne<{ user_id: string; csrf_token: string; stale: boolean }>(
    sessionSql().resume,
    [idHash, session.absoluteHours, session.idleMinutes], // a sub-minute idle timeout slides at half its length
  );
  if (!row) return undefined;
  if (row.stale) await execute(sessionSql().slide, [idHash, session.idleMinutes]);
  const actor = await loadUserActor(row.user_id, 'session');
  return actor ? { actor: { ...actor, sessionId: idHash }, csrfToken: row.csrf_token } : undefined;
}

/** Ends a session (logout). */
export async function endSession(sid: string): Promise<void> {
  await Session.destroy({ where: { idHash: sha256Hex(sid) } });
}

/** Removes expired sessions (periodic job). */
export async function purgeExpiredSessions(opts: { transaction?: Tx } = {}): Promise<number> {
  return Session.destroy({ where: { expiresAt: { [Op.lt]: fn('now') } }, transaction: opts.transaction });
}

// ---- passwords -----------------------------------------------------------------------------------

/** The one password rule (set by an admin, an invitation or a reset): 10 to 200 characters; answers its hash. */
export async function newPasswordHash(password: string): Promise<string> {
  if (!password || password.length < 10) throw new InputError('Password must have at least 10 characters');
  if (password.length > 200) throw new InputError('Password must have at most 200 characters');
  return hashPassword(password);
}

/** Ends every session of a user (its password changed), in the caller's transaction. */
export async function endUserSessions(userId: string, opts: { transaction: Tx }): Promise<number> {
  return Session.destroy({ where: { userId }, transaction: opts.transaction });
}

/** Lifts an account's lockout after failed logins (its owner proved its mailbox with a reset). */
export async function clearLoginLockout(email: string, opts: { transaction?: Tx } = {}): Promise<void> {
  await clearBucket(`login:${canonicalEmail(email) ?? email}`, opts);
}

/** Sets a user's password (admin or CLI) and ends every session of the user, in one transaction. */
export async function setPassword(actor: Actor, email: string, password: string): Promise<void> {
  authorize(actor, 'update', 'User');
  const hash = await newPasswordHash(password);
  await withTransaction(undefined, async (transaction) => {
    const userId = await storePasswordHash(email, hash, { transaction });
    if (!userId) throw new NotFoundError(`User ${email} not found`);
    await endUserSessions(userId, { transaction });
  });
}

// ---- API keys ------------------------------------------------------------------------------------

/** Generates (or regenerates) the user's API key pair; the secret is returned once and stored hashed. */
export async function generateApiKeys(
  actor: Actor,
  target: { userId?: string; email?: string },
): Promise<{ api_key: string; api_secret: string; user: string }> {
  authorize(actor, 'create', 'API Key');
  const made = await withTransaction(undefined, async (transaction) => {
    const user = await lockUser(target, { transaction });
    if (!user) throw new NotFoundError(`User ${target.email ?? target.userId} not found`);
    authorizeApiKeysFor(actor, user.id); // its own keys; anyone's for an admin or the CLI
    const apiKey = randomToken(12).replace(/[-_]/g, 'x').slice(0, 15).toLowerCase();
    const apiSecret = randomToken(24);
    await ApiKey.upsert({ userId: user.id, apiKey, secretHash: pepper(apiSecret) }, { transaction, returning: false });
    return { api_key: apiKey, api_secret: apiSecret, user: user.email };
  });
  forgetApiKeys(); // after the commit: the previous key stops here before the notification arrives (other processes: at its arrival)
  return made;
}

// Runs on every API request: prepared once per connection (planning the team CTE cost ~3× its execution).
const apiKeySql = once(() => {
  const { t, c } = namesOf(ApiKey);
  return `${actorSelect(`k.${c.secretHash} AS secret_hash, `)} JOIN ${t} k ON k.${c.userId} = u.${namesOf(userRead).c.id} WHERE k.${c.apiKey} = $1`;
});

const rehashSql = once(() => {
  const { t, c } = namesOf(ApiKey);
  return `UPDATE ${t} SET ${c.secretHash} = $1 WHERE ${c.apiKey} = $2 AND ${c.secretHash} = $3`;
});

/** Resolves `token <key>:<secret>` to its user actor, or undefined (401). */
export async function resolveApiKey(apiKey: string, apiSecret: string): Promise<Actor | undefined> {
  const kept = keptApiKey(apiKey);
  // a key verified since the last credentials change (within SVC_API_KEY_CACHE_MS): its secret is still checked, its row not read again
  if (kept && safeEqual(pepper(apiSecret), kept.secretHash)) return { ...kept.actor };
  if (kept) forgetApiKeys(apiKey);
  const since = apiKeyGeneration(); // a change notified while this reads: what it read is not kept
  const row = await selectOne<ActorRow & { secret_hash: string }>(apiKeySql(), [apiKey]);
  const expected = row?.secret_hash ?? pepper('no-such-key');
  const match = matchPeppered((key) => pepper(apiSecret, key), expected);
  if (!row || !match || !row.enabled) return undefined;
  // hashed with the previous SVC_SECRET_KEY: made again with the current one, so it outlives the rotation
  if (match === 'previous') await execute(rehashSql(), [pepper(apiSecret), apiKey, expected]);
  const actor = await withVendorStanding(toActor(row, 'token'));
  if (match === 'current' && apiKeyGeneration() === since) keepApiKey(apiKey, expected, actor, runtime().config.apiKeyCacheMs);
  return actor;
}
