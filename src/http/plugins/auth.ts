/**
 * One auth scheme for the API: `Authorization: token <key>:<secret>` (or Basic), `Bearer <jwt>`
 * (vendor tokens, verified by the verifier the vendor API registers), or the `sid` session cookie.
 * Session writes must carry the CSRF token (X-Svc-CSRF-Token or X-Frappe-CSRF-Token, or Frappe's
 * `csrf_token` form field).
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

/** What the scheme hands on: the session's CSRF token, and whether the form body must still carry it. */
interface SessionArtifacts {
  csrfToken?: string;
  csrfInForm?: boolean;
}

/** A form body (Frappe's `csrf_token` field may be in it); read only once hapi has parsed the payload. */
const FORM_BODY = /^\s*(application\/x-www-form-urlencoded|multipart\/form-data)\b/i;

/**
 * Stamps the actor with the request's id and address, then checks CSRF (session writes) and the
 * route's access: the refusal, if any. A session write of a form without the header defers the
 * check to the form's `csrf_token` field (the scheme's payload step).
 */
function admit(request: Request, actor: Actor, artifacts: SessionArtifacts): Error | undefined {
  actor.requestId = request.info.id;
  actor.ip = request.info.remoteAddress;
  const { csrfToken } = artifacts;
  if (actor.via === 'session' && csrfToken && WRITE_METHODS.has(request.method)) {
    const sent = (request.headers['x-svc-csrf-token'] ?? request.headers['x-frappe-csrf-token']) as string | undefined;
    // Frappe's form field is for the API's routes; the portal's own form pages check their field
    // themselves and answer a refused form with their page, so their fields are left to them
    if (!sent && request.path.startsWith('/api/') && FORM_BODY.test(String(request.headers['content-type'] ?? ''))) artifacts.csrfInForm = true;
    else if (!sent || !safeEqual(String(sent), csrfToken)) return new CsrfError();
  }
  const access = request.route.settings.app?.access;
  if (access && !mayCall(actor, access)) return new PermissionError('Not permitted');
  return undefined;
}

/** Frappe's form field: checked, then removed from the arguments as Frappe pops it from form_dict. */
function checkFormCsrf(request: Request): void {
  const artifacts = request.auth.artifacts as SessionArtifacts | undefined;
  if (!artifacts?.csrfInForm) return;
  const form = request.payload as Record<string, unknown> | null;
  const sent = form && typeof form === 'object' && !Buffer.isBuffer(form) ? form.csrf_token : undefined;
  if (typeof sent !== 'string' || !safeEqual(sent, artifacts.csrfToken!)) throw new CsrfError();
  delete form!.csrf_token;
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

/**
 * Credentials, CSRF and the route's access are all settled inside the scheme: one lifecycle step
 * instead of an extra onPostAuth extension that every request (public ones included) would pay for.
 */
function svcScheme() {
  return {
    async authenticate(request: Request, h: ResponseToolkit) {
      const { actor, csrfToken } = await presented(request);
      const artifacts: SessionArtifacts = { csrfToken };
      const refused = admit(request, actor, artifacts);
      // a refusal keeps the credentials, so the access log names who was refused
      if (refused) return h.unauthenticated(refused, { credentials: actor as never });
      return h.authenticated({ credentials: actor as never, artifacts: csrfToken ? artifacts : undefined });
    },
    // runs after hapi parsed the body of a non-GET request (payload authentication is required so
    // every route gets the step); it does something only for a form write deferred by admit()
    payload(request: Request, h: ResponseToolkit) {
      checkFormCsrf(request);
      return h.continue;
    },
    options: { payload: true },
  };
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

    server.auth.scheme('svc', svcScheme);
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
