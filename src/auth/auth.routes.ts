import type { Request, Server, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { endSession, generateApiKeys, login } from './credentials.service.js';
import { hasDeskAccess } from './policy/index.js';
import type { Actor } from './actor.js';
import { emptyResult, messageOf, methodRoute } from '../http/method.js';

const loginResult = Joi.object({
  message: Joi.string().valid('Logged In', 'No App'),
  home_page: Joi.string().description('Where the user lands'),
  full_name: Joi.string(),
  csrf_token: Joi.string().description('Send it as X-Frappe-CSRF-Token (or X-Svc-CSRF-Token) on session writes'),
}).label('LoginResult');
const apiKeys = messageOf(
  Joi.object({ api_key: Joi.string(), api_secret: Joi.string().description('Shown once'), user: Joi.string() }).label('ApiKeyPair'),
  'GenerateKeysResult',
);
import { CsrfError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';
import { SIDE_COOKIES } from '../http/plugins/auth.js';
import { clientAddress } from '../http/pre.js';

/** A JSON body: no page of another site can send one without a CORS preflight, which it would not pass. */
function isJsonBody(request: Request): boolean {
  const media = String(request.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  return media === 'application/json' || /^application\/[\w.+-]+\+json$/.test(media);
}

/** The origin of a header value (an Origin, or a Referer's URL), or undefined when it is none ("null" included). */
function originOf(value: string): string | undefined {
  try {
    const origin = new URL(value).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * Login CSRF (issue 24): a login by anything but a JSON body (a form, or arguments in the query) is
 * taken only from this site's own pages (Origin, else Referer, of this host, SVC_BASE_URL or a
 * configured CORS origin). A client that sends neither header is no browser (Frappe's Python client
 * posts a form without them) and keeps working: a browser always sends Origin on a cross-site POST.
 */
function refuseCrossSiteForm(request: Request): void {
  if (isJsonBody(request)) return;
  const claimed = request.headers.origin ?? request.headers.referer;
  if (claimed === undefined) return;
  const origin = originOf(String(claimed));
  const { baseUrl, http } = runtime().config;
  const own = new Set([originOf(baseUrl), ...http.corsOrigins.map(originOf)]);
  const sameHost = origin !== undefined && new URL(origin).host === request.headers.host;
  if (!origin || !(sameHost || own.has(origin))) throw new CsrfError('Invalid Request: a login form must come from this site');
}

/** The page a user lands on after login: always a page this server has (the portal for a customer, once it exists). */
function homePageFor(server: Server, actor: Actor): string {
  return !hasDeskAccess(actor) && server.match('GET', '/portal') !== null ? '/portal' : '/';
}

export const authRoutes: ServerRoute[] = [
  methodRoute({
    name: 'login',
    methods: ['POST'],
    access: 'public',
    description: 'Log in with usr/pwd; sets the HttpOnly sid cookie and returns the CSRF token for session writes',
    tags: ['auth'],
    docs: { result: loginResult, errors: [401, 429] },
    args: Joi.object<{ usr?: string; pwd?: string; device?: string; otp?: unknown; tmp_id?: unknown }>({
      usr: Joi.string().max(255).allow(''),
      pwd: Joi.string().max(1024).allow(''),
      device: Joi.string().allow(''),
      otp: Joi.any(),
      tmp_id: Joi.any(),
    }),
    handler: async ({ request, h, args }) => {
      refuseCrossSiteForm(request);
      const usr = (args.usr ?? '').trim();
      const result = await login(usr, args.pwd ?? '', { ip: clientAddress(request), userAgent: request.headers['user-agent'] });
      const { actor } = result;
      const desk = hasDeskAccess(actor);
      const response = h.response({
        message: 'Logged In',
        home_page: homePageFor(request.server, actor),
        full_name: actor.fullName,
        csrf_token: result.csrfToken,
      });
      response.state('sid', result.sid, { ttl: result.maxAgeSeconds * 1000 });
      const side = {
        system_user: desk ? 'yes' : 'no',
        full_name: encodeURIComponent(actor.fullName ?? ''),
        user_id: encodeURIComponent(actor.email ?? ''),
        user_image: '',
      };
      for (const [name, value] of Object.entries(side)) response.state(name, value, { ttl: result.maxAgeSeconds * 1000 });
      return response;
    },
  }),
  methodRoute({
    name: 'logout',
    // POST only, and a session's POST carries its CSRF token (the auth scheme refuses it otherwise), so
    // no other site can end a session (issue 24); frappe-js-sdk's logout() is such a POST
    methods: ['POST'],
    access: 'public',
    description: 'End the session and expire its cookies (POST with the CSRF token: X-Frappe-CSRF-Token or X-Svc-CSRF-Token)',
    tags: ['auth'],
    docs: { result: emptyResult },
    handler: async ({ request, h }) => {
      const sid = request.state.sid as string | undefined;
      if (sid) await endSession(sid);
      const response = h.response({});
      response.unstate('sid');
      for (const name of SIDE_COOKIES) response.unstate(name);
      return response;
    },
  }),
  methodRoute({
    name: 'frappe.auth.get_logged_user',
    methods: ['GET'],
    access: 'authenticated',
    description: 'The e-mail of the logged-in user',
    tags: ['auth'],
    docs: { result: messageOf(Joi.string().description('The e-mail (or id) of the caller'), 'LoggedUser') },
    handler: ({ actor }) => actor!.email ?? actor!.id,
  }),
  methodRoute({
    name: 'svc.auth.get_csrf_token',
    methods: ['GET'],
    access: 'authenticated',
    description: 'The CSRF token of the current session (send it as X-Svc-CSRF-Token on session writes)',
    tags: ['auth'],
    docs: { result: Joi.object({ message: Joi.string().description('Absent when the caller has no session') }).label('CsrfToken') },
    handler: ({ request }) => (request.auth.artifacts as { csrfToken?: string } | undefined)?.csrfToken ?? null,
  }),
  methodRoute({
    name: 'svc.auth.generate_keys',
    methods: ['POST'],
    access: 'authenticated',
    description: 'Generate (or regenerate) the API key and secret of the caller, or of `user` for an admin; the secret is shown once',
    tags: ['auth'],
    docs: { result: apiKeys, errors: [404] },
    args: Joi.object<{ user?: string }>({ user: Joi.string().max(255) }),
    handler: ({ args, actor }) => generateApiKeys(actor!, args.user ? { email: args.user } : { userId: actor!.id }),
  }),
  methodRoute({
    name: 'frappe.core.doctype.user.user.generate_keys',
    methods: ['POST'],
    access: 'authenticated',
    description: "Frappe's name for svc.auth.generate_keys",
    tags: ['auth'],
    docs: { result: apiKeys, errors: [404] },
    args: Joi.object<{ user?: string }>({ user: Joi.string().max(255) }),
    handler: ({ args, actor }) => generateApiKeys(actor!, args.user ? { email: args.user } : { userId: actor!.id }),
  }),
];
