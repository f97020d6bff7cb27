/**
 * /portal/integrations (issue 13) and the portal's login: server-rendered pages for a logged-in
 * customer or vendor (session cookie `sid`). Page forms are CSRF-protected with the session's own
 * token (synchroniser token: the one `POST /api/method/login` answers as csrf_token), sent in a
 * hidden field and compared in constant time before anything runs; the login form with a
 * double-submit token (a random value in a SameSite=Strict HttpOnly cookie and the form, equal).
 * Every action calls the service the svc.integrations.* methods call, so the policy decides both.
 */
import type { Request, ResponseObject, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { endSession, login, resumeSession } from '../auth/credentials.service.js';
import type { Actor } from '../auth/actor.js';
import { actorOf } from '../http/plugins/auth.js';
import { randomToken, safeEqual } from '../shared/crypto.js';
import { DomainError, PermissionError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';
import { integrationStatus } from './connections.service.js';
import { integrationsPage, loginPage, messagePage, portalCsp } from './portal.page.js';
import { connectShipper, disconnectShipper } from './shipper-connect.service.js';
import { disconnectStore, installFormTargets, startStoreInstall } from './store-oauth.service.js';
import { syncOwnStore } from './store-sync.service.js';
import { clientAddress } from '../http/pre.js';

const LOGIN_COOKIE = 'svc_portal_login';
const PAGE = '/portal/integrations';
const TRY = { mode: 'try' as const, strategy: 'svc' };

type Form = Record<string, unknown>;
const field = (form: Form, name: string) => (typeof form[name] === 'string' ? form[name] : '');

function html(h: ResponseToolkit, body: string, status = 200, formTargets: string[] = []): ResponseObject {
  return h
    .response(body)
    .code(status)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', portalCsp(formTargets))
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'same-origin');
}

async function renderPage(h: ResponseToolkit, actor: Actor, csrf: string, extra: { notice?: string; error?: string; status?: number } = {}) {
  const s = await integrationStatus(actor);
  const page = integrationsPage({
    who: actor.fullName ?? actor.email ?? actor.id,
    org: `${s.owner.ownerType} ${s.owner.owner}`,
    csrf,
    shipper: s.shipper,
    storefront: s.storefront,
    notice: extra.notice,
    error: extra.error,
  });
  return html(h, page, extra.status ?? 200, await installFormTargets());
}

async function showIntegrations(request: Request, h: ResponseToolkit) {
  if (!request.auth.isAuthenticated) return h.redirect('/portal/login').code(303);
  const actor = actorOf(request);
  const csrf = (request.auth.artifacts as { csrfToken?: string } | undefined)?.csrfToken;
  if (!csrf) return html(h, messagePage('Integrations', 'This page is for a browser session: log in at /portal/login.'), 403);
  try {
    const notice = typeof request.query.notice === 'string' ? request.query.notice : undefined;
    return await renderPage(h, actor, csrf, { notice });
  } catch (err) {
    if (err instanceof PermissionError) return html(h, messagePage('Integrations', 'Integrations are managed by customer and vendor accounts.'), 403);
    throw err;
  }
}

/** The session of a form post and its CSRF check: the actor, or the page to answer instead. */
async function formSession(request: Request, h: ResponseToolkit): Promise<{ actor: Actor; csrf: string } | ResponseObject> {
  const sid = request.state.sid as string | undefined;
  const session = sid ? await resumeSession(sid) : undefined;
  if (!session) return h.redirect('/portal/login').code(303);
  const sent = field((request.payload ?? {}) as Form, 'csrf_token');
  if (!sent || !safeEqual(sent, session.csrfToken))
    return html(
      h,
      messagePage('Form refused', 'The form was not sent by this session’s page (CSRF token missing or wrong): reload the page and try again.'),
      403,
    );
  return { actor: { ...session.actor, requestId: request.info.id, ip: request.info.remoteAddress }, csrf: session.csrfToken };
}

type Action = (actor: Actor, form: Form, h: ResponseToolkit) => Promise<ResponseObject | string>;

const ACTIONS: Record<string, Action> = {
  'shipper/connect': async (actor, form) => {
    await connectShipper(actor, { api_key: field(form, 'api_key'), api_secret: field(form, 'api_secret') });
    return 'shipper-connected';
  },
  'shipper/disconnect': async (actor) => (await disconnectShipper(actor), 'shipper-disconnected'),
  'storefront/install': async (actor, form, h) => {
    const { authorize_url } = await startStoreInstall(actor, { shop_domain: field(form, 'shop_domain') });
    return h.redirect(authorize_url).code(303);
  },
  'storefront/disconnect': async (actor) => (await disconnectStore(actor), 'storefront-disconnected'),
  'storefront/sync-catalog': async (actor) => (await syncOwnStore(actor, 'catalog'), 'catalog-synced'),
  'storefront/sync-inventory': async (actor) => (await syncOwnStore(actor, 'inventory'), 'inventory-synced'),
  'storefront/import-orders': async (actor) => (await syncOwnStore(actor, 'orders'), 'orders-imported'),
};

async function runAction(request: Request, h: ResponseToolkit) {
  const action = ACTIONS[`${String(request.params.area)}/${String(request.params.action)}`];
  if (!action) return html(h, messagePage('Not found', 'No such form.'), 404);
  const session = await formSession(request, h);
  if (!('actor' in session)) return session;
  try {
    const done = await action(session.actor, (request.payload ?? {}) as Form, h);
    return typeof done === 'string' ? h.redirect(`${PAGE}?notice=${done}`).code(303) : done;
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    if (err instanceof PermissionError) return html(h, messagePage('Integrations', 'Integrations are managed by customer and vendor accounts.'), 403);
    return renderPage(h, session.actor, session.csrf, { error: err.message, status: err.status });
  }
}

function showLogin(_request: Request, h: ResponseToolkit, error?: string, status = 200) {
  const token = randomToken(24);
  return html(h, loginPage({ csrf: token, error }), status).state(LOGIN_COOKIE, token, {
    isHttpOnly: true,
    isSameSite: 'Strict',
    isSecure: runtime().config.env !== 'development',
    path: '/portal/login',
    ttl: 3600_000,
    encoding: 'none',
  });
}

async function doLogin(request: Request, h: ResponseToolkit) {
  const form = (request.payload ?? {}) as Form;
  const cookie = request.state[LOGIN_COOKIE] as string | undefined;
  const sent = field(form, 'csrf_token');
  if (!cookie || !sent || !safeEqual(cookie, sent)) return showLogin(request, h, 'The login form expired: please try again.', 403);
  try {
    const result = await login(field(form, 'usr').trim(), field(form, 'pwd'), { ip: clientAddress(request), userAgent: request.headers['user-agent'] });
    return h
      .redirect(PAGE)
      .code(303)
      .state('sid', result.sid, { ttl: result.maxAgeSeconds * 1000 })
      .unstate(LOGIN_COOKIE, { path: '/portal/login' });
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return showLogin(request, h, err.message, err.status);
  }
}

async function doLogout(request: Request, h: ResponseToolkit) {
  const session = await formSession(request, h);
  if (!('actor' in session)) return session;
  await endSession(request.state.sid as string);
  return h.redirect('/portal/login').code(303).unstate('sid');
}

const page = (method: 'GET' | 'POST', path: string, handler: (r: Request, h: ResponseToolkit) => unknown, description: string): ServerRoute => ({
  method,
  path,
  options: { auth: TRY, app: { access: 'public' }, description, tags: ['portal'], handler: handler as never },
});

export const portalRoutes: ServerRoute[] = [
  page('GET', '/portal', (_r, h) => h.redirect(PAGE).code(303), 'The portal (its first page: integrations)'),
  page('GET', '/portal/login', (r, h) => showLogin(r, h), 'The portal login form'),
  page('POST', '/portal/login', doLogin, 'Log in from the portal form (double-submit CSRF token)'),
  page('POST', '/portal/logout', doLogout, 'Log out from the portal (CSRF token of the session)'),
  page('GET', PAGE, showIntegrations, 'Your shipper and storefront connections (HTML)'),
  page('POST', `${PAGE}/{area}/{action}`, runAction, 'The forms of /portal/integrations (CSRF token of the session)'),
];
