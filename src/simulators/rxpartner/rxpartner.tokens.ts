/**
 * rxpartner's access tokens: `POST /v1/oauth2/token` with the nested credentials body (a form or
 * grant_type body gets the gateway's 502), a short-lived HS256 JWT, and the Bearer check; revoking
 * (`/_sim/tokens/revoke`) makes every token issued so far invalid.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { json, type SimReply, type SimRequest } from '../shared/http.js';
import { safeEqual } from '../shared/verify.js';
import { BAD_GATEWAY, nest } from './rxpartner.replies.js';

export interface RxCredentials {
  clientId: string;
  clientSecret: string;
}

export class RxTokens {
  private readonly key = randomBytes(32);
  private readonly live = new Set<string>(); // token ids; revoke() empties it

  constructor(private readonly ttl: number) {}

  async issue(clientId: string): Promise<SimReply> {
    const jti = randomUUID();
    this.live.add(jti);
    const accessToken = await new SignJWT({ scope: 'orders patients' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(clientId)
      .setIssuer('rxpartner-simulator')
      .setIssuedAt()
      .setExpirationTime(`${this.ttl}s`)
      .setJti(jti)
      .sign(this.key);
    return json(200, { accessToken, tokenType: 'Bearer', expiresIn: this.ttl });
  }

  /** the client of a live Bearer token, else undefined */
  async bearer(req: SimRequest): Promise<string | undefined> {
    const m = req.header('authorization')?.match(/^Bearer\s+(\S+)$/i);
    if (!m) return undefined;
    try {
      const { payload } = await jwtVerify(m[1], this.key, { algorithms: ['HS256'], issuer: 'rxpartner-simulator' });
      return payload.jti && this.live.has(payload.jti) ? payload.sub : undefined;
    } catch {
      return undefined;
    }
  }

  revoke(): void {
    this.live.clear();
  }
}

/** The client id of a token request with the right credentials, or the answer refusing it. */
export function tokenClient(req: SimRequest, creds: RxCredentials): string | SimReply {
  const type = req.header('content-type') ?? '';
  let body: unknown;
  try {
    body = type.includes('application/x-www-form-urlencoded') ? undefined : req.json();
  } catch {
    body = undefined;
  }
  const b = (body ?? {}) as Record<string, unknown>;
  // the spec: a standard grant_type (form) body is answered 502 by the partner's gateway
  if (body === undefined || 'grant_type' in b || !b.credentials || typeof b.credentials !== 'object') return BAD_GATEWAY;
  const c = b.credentials as Record<string, unknown>;
  if (
    typeof c.clientId !== 'string' ||
    typeof c.clientSecret !== 'string' ||
    !safeEqual(c.clientId, creds.clientId) ||
    !safeEqual(c.clientSecret, creds.clientSecret)
  ) {
    return nest(401, 'Invalid client credentials', 'Unauthorized');
  }
  return c.clientId;
}
