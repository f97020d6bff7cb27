/**
 * Vendor bearer tokens (spec "Authentication / 3"): HS256 JWTs made with jose, keyed from
 * config.secretKey, with pinned alg, issuer, audience and typ. A `sv` claim carries the profile's
 * secret version, so regenerating the client secret, a suspension, a rejection or turning the API off
 * kills every older token for good; the profile itself is re-read on every request, so un-approval
 * acts at once too. A refreshed token is retired.
 */
import { createHmac } from 'node:crypto';
import type { Actor } from '../auth/actor.js';
import { VENDOR_ROLE } from '../auth/policy/roles.js';
import { AuthenticationError, InputError, PermissionError, UnprocessableError } from '../shared/errors.js';
import type { Tx } from '../db/sequelize.js';
import { lockedOut, loginFailed } from '../shared/metrics.js';
import { runtime } from '../shared/runtime.js';
import { clearBucket, hitSlidingStart, peekSlidingStart } from '../shared/rate-limit.js';
import { matchPeppered } from '../shared/peppered.js';
import {
  apiRefusal,
  canUseApi,
  hashClientSecret,
  isPharmacy,
  loadVendorForAuth,
  rehashClientSecret,
  type VendorRow,
} from '../vendors/vendor-profile.service.js';

export const TOKEN_TTL_SECONDS = 3600;
const ISSUER = 'svc';
const AUDIENCE = 'svc.api.v1';
const TYP = 'at+jwt'; // RFC 9068 access token; a token of another kind is refused
/** A refresh chain ends this long after the secret was last presented (decision: no endless chains). */
const MAX_CHAIN_SECONDS = 24 * 3600;
export const LOCKOUT_FAILURES = 10;
export const LOCKOUT_WINDOW_SECONDS = 15 * 60;

const derivedKeys = new Map<string, Uint8Array>();
function jwtKey(secret: string): Uint8Array {
  let key = derivedKeys.get(secret);
  if (!key) derivedKeys.set(secret, (key = createHmac('sha256', secret).update('svc:vendor-jwt:v1').digest()));
  return key;
}
function signingKey(): Uint8Array {
  return jwtKey(runtime().config.secretKey);
}
/** The keys a token may be signed with: the current SVC_SECRET_KEY's, and during a rotation the previous one's. */
function verifyingKeys(): Uint8Array[] {
  const { secretKey, secretKeyPrevious } = runtime().config;
  return secretKeyPrevious ? [jwtKey(secretKey), jwtKey(secretKeyPrevious)] : [jwtKey(secretKey)];
}

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

function scopesFor(vendor: VendorRow): string[] {
  return isPharmacy(vendor.scope) ? ['sync', 'pharmacy'] : ['sync'];
}

const KNOWN_SCOPES = ['sync', 'pharmacy'];

/**
 * The scopes asked for in a `scope` parameter (space or comma separated), checked against the
 * vendor: an unknown scope is 400; `pharmacy` from a standard vendor is 422, as the spec's Errors
 * table says for "a non-pharmacy vendor using the pharmacy scope". `sync` is always granted.
 */
function requestedScopes(vendor: VendorRow, raw: string | undefined): string[] | undefined {
  const wanted = (raw ?? '').split(/[\s,]+/).filter(Boolean);
  if (wanted.length === 0) return undefined;
  const unknown = wanted.filter((s) => !KNOWN_SCOPES.includes(s));
  if (unknown.length) throw new InputError(`Unknown scope: ${unknown.join(' ')} (known: sync, pharmacy)`);
  if (wanted.includes('pharmacy') && !isPharmacy(vendor.scope)) throw new UnprocessableError('The pharmacy scope is only for 503A/503B pharmacy vendors');
  return scopesFor(vendor).filter((s) => s === 'sync' || wanted.includes(s));
}

/**
 * jose loads with the first token made or checked: its modules cost a process about 0.1 s of CPU, which
 * a process that sees no vendor token (an admin command, most tests' apps) does not pay
 * (docs/decisions.md, "The test suite's time").
 */
const importJose = () => import('jose');
let jose: ReturnType<typeof importJose> | undefined;
const loadJose = () => (jose ??= importJose());

async function mint(vendor: VendorRow, scopes: string[], authTime: number): Promise<TokenAnswer> {
  const { SignJWT } = await loadJose();
  const token = await new SignJWT({ scope: scopes.join(' '), sv: vendor.secret_version, cid: vendor.client_id, auth_time: authTime })
    .setProtectedHeader({ alg: 'HS256', typ: TYP })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(vendor.name)
    .setIssuedAt()
    .setExpirationTime(`${TOKEN_TTL_SECONDS}s`)
    .setJti(crypto.randomUUID())
    .sign(signingKey());
  return { access_token: token, token_type: 'Bearer', expires_in: TOKEN_TTL_SECONDS, scope: scopes.join(' ') };
}

const INVALID = 'Invalid client credentials';

/**
 * The lockout counter of a client_id: its own for a known client_id; for an unknown one, one per client
 * address, so a stranger's guesses at made-up client_ids keep one row, not a row per guess (an
 * unauthenticated caller never spends unbounded storage), and never touch a real vendor's count.
 */
function lockoutBucket(clientId: string, known: boolean, ip: string | undefined): string {
  return known ? `vendor-auth:${clientId}` : `vendor-auth-unknown:${ip ?? 'no-address'}`;
}

/**
 * auth.token: client credentials → a one-hour token. Unknown client_id and wrong secret answer
 * alike. 10 failures within 15 minutes of the first lock the client_id (even the right secret gets
 * 401 + Retry-After until the window ends); a success before that clears the count. Unknown client_ids
 * are counted together per address (lockoutBucket): both cases read, hash and count the same.
 */
export async function issueToken(
  clientId: string,
  clientSecret: string,
  meta: {
    ip?: string;
    scope?: string;
    /** told the vendor a known client_id names, before its secret is checked (the Vendor API Log) */
    identified?: (vendor: string) => void;
  } = {},
): Promise<TokenAnswer> {
  // per client_id only (spec Limits): no address-wide refusal, which would also refuse the right
  // secret of every vendor sharing that address (NAT, an integration platform, a proxy)
  const vendor = clientId ? await loadVendorForAuth({ clientId }) : undefined;
  if (vendor) meta.identified?.(vendor.name);
  const idBucket = lockoutBucket(clientId, Boolean(vendor), meta.ip);
  const locked = await peekSlidingStart(idBucket);
  if (locked && locked.count >= LOCKOUT_FAILURES) {
    loginFailed('client_locked');
    throw new AuthenticationError('Too many failed authentication attempts; try again later').withHeader('Retry-After', String(locked.resetInSeconds));
  }
  // compare against a dummy hash when the client is unknown, so both cases cost the same
  const stored = vendor?.client_secret_hash ?? hashClientSecret(`\u0000no-such-client:${clientId}`);
  const match = matchPeppered((key) => hashClientSecret(clientSecret, key), stored);
  const ok = Boolean(match) && Boolean(vendor?.client_secret_hash);
  if (!vendor || !ok) {
    loginFailed('client_bad_secret');
    // a lockout is counted once, by the failure that reaches its limit
    if ((await hitSlidingStart(idBucket, LOCKOUT_WINDOW_SECONDS)).count === LOCKOUT_FAILURES) lockedOut();
    throw new AuthenticationError(INVALID);
  }
  await clearBucket(idBucket);
  // hashed with the previous SVC_SECRET_KEY: made again with the current one, so it outlives the rotation
  if (match === 'previous') await rehashClientSecret(vendor.name, clientSecret, stored);
  // the secret was right: the caller is told which of the conditions its profile fails
  const refusal = apiRefusal(vendor);
  if (refusal) throw new AuthenticationError(refusal);
  return mint(vendor, requestedScopes(vendor, meta.scope) ?? scopesFor(vendor), Math.floor(Date.now() / 1000));
}

interface Claims {
  sub: string;
  scope: string;
  sv: number;
  cid: string;
  auth_time: number;
}
/** The claims of a verified token: every token minted here has an id and an expiry. */
interface VerifiedClaims extends Claims {
  jti: string;
  exp: number;
}

// A refreshed token is retired until it would have expired anyway: a first-event counter row per
// token id (rate_counters, in PostgreSQL so every process agrees; the housekeeping job drops it after
// its expiry). Its count also tells a second refresh of the same token from the first.
const retiredBucket = (jti: string) => `vendor-token-retired:${jti}`;

/** Retires a token; false when it was retired already (a second refresh of one token). */
async function retireToken(claims: VerifiedClaims): Promise<boolean> {
  const remaining = Math.max(1, claims.exp + 60 - Math.floor(Date.now() / 1000));
  return (await hitSlidingStart(retiredBucket(claims.jti), remaining)).count === 1;
}

/** The claims of a token signed with the current key or, during a rotation, the previous one; undefined when it does not verify. */
async function verifiedClaims(token: string): Promise<VerifiedClaims | undefined> {
  const { jwtVerify, errors: joseErrors } = await loadJose();
  for (const key of verifyingKeys()) {
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
        typ: TYP,
        maxTokenAge: `${TOKEN_TTL_SECONDS + 60}s`,
        requiredClaims: ['sub', 'exp', 'iat', 'jti'],
      });
      return payload as unknown as VerifiedClaims;
    } catch (err) {
      if (err instanceof joseErrors.JWSSignatureVerificationFailed) continue; // another key's signature: the next key
      if (err instanceof joseErrors.JOSEError) return undefined;
      throw err;
    }
  }
  return undefined;
}

/** Verifies a token and re-checks its profile; undefined when any check fails. */
export async function verifyToken(token: string): Promise<{ vendor: VendorRow; claims: VerifiedClaims } | undefined> {
  const claims = await verifiedClaims(token);
  if (!claims) return undefined;
  if (typeof claims.sub !== 'string' || typeof claims.scope !== 'string' || typeof claims.sv !== 'number' || typeof claims.jti !== 'string') return undefined;
  const [vendor, retired] = await Promise.all([loadVendorForAuth({ name: claims.sub }), peekSlidingStart(retiredBucket(claims.jti))]);
  if (!vendor || retired || !canUseApi(vendor) || vendor.secret_version !== claims.sv || vendor.client_id !== claims.cid) return undefined;
  return { vendor, claims };
}

/** The actor of a verified token: scopes are what the token carries and the profile still allows. */
export function vendorActor(vendor: VendorRow, claims: Claims): Actor {
  const allowed = scopesFor(vendor);
  const scopes = claims.scope.split(' ').filter((s) => allowed.includes(s));
  return { type: 'vendor', id: vendor.name, fullName: vendor.vendor_name, roles: [VENDOR_ROLE], vendor: vendor.name, scopes, via: 'bearer' };
}

// The profile read by the verifier, kept with the request's actor so services need not read it again.
const profiles = new WeakMap<Actor, VendorRow>();

/** The bearer verifier registered with the HTTP auth scheme. */
export async function verifyBearer(token: string): Promise<Actor | undefined> {
  const verified = await verifyToken(token);
  if (!verified) return undefined;
  const actor = vendorActor(verified.vendor, verified.claims);
  profiles.set(actor, verified.vendor);
  return actor;
}

/** The calling vendor's profile (as read at authentication, else from the database). */
export async function vendorProfileOf(actor: Actor, opts: { transaction?: Tx } = {}): Promise<VendorRow> {
  const cached = profiles.get(actor);
  if (cached) return cached;
  const row = actor.vendor ? await loadVendorForAuth({ name: actor.vendor }, opts) : undefined;
  if (!row) throw new PermissionError('Not a vendor');
  return row;
}

/**
 * auth.refresh: a still-valid token → a fresh one with the same (or fewer) scopes, and the token it
 * replaces is retired (refused from then on; a second refresh of it too). Asking for a scope the
 * token does not carry is refused; a chain ends a day after the secret was presented.
 */
export async function refreshToken(token: string, requestedScope?: string): Promise<TokenAnswer> {
  const verified = await verifyToken(token);
  if (!verified) throw new AuthenticationError('Invalid or expired access token');
  const { vendor, claims } = verified;
  const current = vendorActor(vendor, claims).scopes ?? [];
  const wanted = requestedScope ? requestedScope.split(/[\s,]+/).filter(Boolean) : current;
  if (wanted.some((s) => !current.includes(s))) throw new AuthenticationError('A refreshed token cannot gain scopes');
  const authTime = typeof claims.auth_time === 'number' ? claims.auth_time : 0;
  if (Date.now() / 1000 - authTime > MAX_CHAIN_SECONDS) throw new AuthenticationError('Refresh chain expired; request a new token with the client credentials');
  if (!(await retireToken(claims))) throw new AuthenticationError('Invalid or expired access token');
  return mint(vendor, wanted, authTime);
}
