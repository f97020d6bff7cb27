/**
 * One auth scheme for the API: `Authorization: token <key>:<secret>` (or Basic), `Bearer <jwt>`
 * (vendor tokens, verified by the verifier the vendor API registers), or the `sid` session cookie.
 * Session writes must carry the CSRF token (X-Svc-CSRF-Token or X-Frappe-CSRF-Token).
 * Who may call the route (its `access`) is asked of the policy module here too.
 */
import Boom from '@hapi/boom';
import type { Plugin, Request, ResponseToolkit, Server } from '@hapi/hapi';
import type { Actor } from '../../auth/actor.js';
import { resolveApiKey, resumeSession } from '../../auth/credentials.service.js';
import { listenForCredentialChanges } from '../../auth/credentials-listener.js';
import { databaseUrl } from '../../db/sequelize.js';
import { mayCall, type RouteAccess } from '../../auth/policy/index.js';
import { safeEqual } from '../../shared/crypto.js';
import { CsrfError, PermissionError } from '../../shared/errors.js';
import { isCleanText } from '../../shared/text.js';
import type { Config } from '../../config/index.js';

export type BearerVerifier = (token: string, request: Request) => Promise<Actor | undefined>;
let bearerVerifier: BearerVerifier | undefined;

/** The vendor API registers how Bearer tokens are verified. */
export function registerBearerVerifier(verifier: BearerVerifier): void {
  bearerVerifier = verifier;
}

function unauthorized(message: string): Boom.Boom {
  return new Boom.Boom(message, { statusCode: 401 });
}

declare module '@hapi/hapi' {
  /** The route settings (`options.app`) the scheme reads. */
  interface RouteOptionsApp {
    /** who may call the route (the policy decides); `public` routes carry no credentials requirement */
    access?: RouteAccess;
  }
}

async function fromAuthorization(header: string, request: Request): Promise<Actor> {
  const space = header.indexOf(' ');
  const kind = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  if (kind === 'token' || kind === 'basic') {
    const pair = kind === 'basic' ? Buffer.from(value, 'base64').toString('utf8') : value;
    const colon = pair.indexOf(':');
    // Basic decodes to any bytes; no key or secret holds a NUL, and the lookup must not send one to PostgreSQL
    if (colon <= 0 || !isCleanText(pair)) throw unauthorized('Invalid API key or secret');
    const actor = await resolveApiKey(pair.slice(0, colon), pair.slice(colon + 1));
    if (!actor) throw unauthorized('Invalid API key or secret');
    return actor;
  }
  if (kind === 'bearer') {
    const actor = bearerVerifier ? await bearerVerifier(value, request) : undefined;
    if (!actor) throw unauthorized('Invalid or expired access token');
    return actor;
  }
  throw unauthorized('Unsupported authorization scheme');
}

export const SIDE_COOKIES = ['system_user', 'full_name', 'user_id', 'user_image'];

const WRITE_METHODS = new Set(['post', 'put', 'patch', 'delete']);

/** Stamps the actor with the request's id and address, then checks CSRF (session writes) and the route's access: the refusal, if any. */
function admit(request: Request, actor: Actor, csrfToken: string | undefined): Error | undefined {
  actor.requestId = request.info.id;
  actor.ip = request.info.remoteAddress;
  if (actor.via === 'session' && csrfToken && WRITE_METHODS.has(request.method)) {
    const sent = (request.headers['x-svc-csrf-token'] ?? request.headers['x-frappe-csrf-token']) as string | undefined;
    if (!sent || !safeEqual(String(sent), csrfToken)) return new CsrfError();
  }
  const access = request.route.settings.app?.access;
  if (access && !mayCall(actor, access)) return new PermissionError('Not permitted');
  return undefined;
}

/**
 * On a public route (auth mode 'try') hapi turns a failed scheme into an anonymous request. A refusal
 * of presented credentials (a session write without its CSRF token) must still refuse the call.
 */
export function refusalOf(request: Request): Error | undefined {
  const err = request.auth.error;
  return err instanceof CsrfError || err instanceof PermissionError ? err : undefined;
}

/** The actor behind the request's Authorization header or session cookie (with the session's CSRF token); 401 without either. */
async function presented(request: Request): Promise<{ actor: Actor; csrfToken?: string }> {
  const header = request.headers.authorization;
  if (header) return { actor: await fromAuthorization(String(header), request) };
  const sid = request.state.sid as string | undefined;
  if (sid && sid !== 'Guest') {
    const resumed = await resumeSession(sid);
    if (!resumed) throw unauthorized('Session expired or invalid');
    return resumed;
  }
  throw unauthorized('Missing credentials: send Authorization: token <api_key>:<api_secret> or Bearer <access_token>, or log in');
}

export const authPlugin: Plugin<{ config: Config }> = {
  name: 'svc-auth',
  register(server, { config }) {
    server.state('sid', {
      ttl: null,
      isSecure: config.env !== 'development',
      isHttpOnly: true,
      isSameSite: 'Lax',
      path: '/',
      encoding: 'none',
      strictHeader: false,
      ignoreErrors: true,
      clearInvalid: false,
    });

    // Frappe's readable side cookies (the SDK and desk read them); never credentials.
    for (const name of SIDE_COOKIES) {
      server.state(name, {
        ttl: null,
        isSecure: config.env !== 'development',
        isHttpOnly: false,
        isSameSite: 'Lax',
        path: '/',
        encoding: 'none',
        strictHeader: false,
        ignoreErrors: true,
        clearInvalid: false,
      });
    }

    // Credentials, CSRF and the route's access are all settled inside the scheme: one lifecycle step
    // instead of an extra onPostAuth extension that every request (public ones included) would pay for.
    server.auth.scheme('svc', () => ({
      async authenticate(request: Request, h: ResponseToolkit) {
        const { actor, csrfToken } = await presented(request);
        const refused = admit(request, actor, csrfToken);
        // a refusal keeps the credentials, so the access log names who was refused
        if (refused) return h.unauthenticated(refused, { credentials: actor as never });
        return h.authenticated({ credentials: actor as never, artifacts: csrfToken ? { csrfToken } : undefined });
      },
    }));
    server.auth.strategy('svc', 'svc');
    server.auth.default({ strategy: 'svc', mode: 'required' });
    if (config.apiKeyCacheMs > 0) listenWhileServing(server);
  },
};

/**
 * Kept API keys are forgotten at each committed credentials change (auth/credentials-listener.ts):
 * listening from the server's start (before its port opens) to its stop (ended within half a second).
 */
function listenWhileServing(server: Server): void {
  let listening: { close(): Promise<void> } | undefined;
  server.ext('onPreStart', async () => {
    listening = await listenForCredentialChanges(databaseUrl());
  });
  server.ext('onPostStop', async () => {
    await listening?.close();
    listening = undefined;
  });
}

/** The actor of an authenticated request. */
export function actorOf(request: Request): Actor {
  const actor = request.auth.credentials as unknown as Actor | undefined;
  // a refused request keeps its credentials for the access log, never for the handler
  if (!actor || !request.auth.isAuthenticated) throw unauthorized('Not authenticated');
  return actor;
}
