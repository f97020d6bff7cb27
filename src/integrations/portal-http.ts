/**
 * What the /portal routes share: an HTML answer with the pages' CSP, the signed-in session of a
 * page or a form post (its CSRF check: the session's own token in a hidden field, compared in
 * constant time before anything runs), the double-submit token of the forms before a session, and
 * the names a page shows (the user's, its organisation's display name, never its id; a clinic's
 * recalls for the navigation and the home page's banner).
 */
import type { Request, ResponseObject, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { Actor } from '../auth/actor.js';
import { resumeSession } from '../auth/credentials.service.js';
import { customerNames } from '../org/org.service.js';
import { loadVendorForAuth } from '../vendors/vendor-profile.service.js';
import { randomToken, safeEqual } from '../shared/crypto.js';
import { runtime } from '../shared/runtime.js';
import { messagePage, portalCsp, type RecallNav } from './portal-layout.js';
import { customerRecallNav } from '../recalls/recall-portal.service.js';

export type Form = Record<string, unknown>;
export const field = (form: Form, name: string): string => (typeof form[name] === 'string' ? form[name] : '');

export function html(h: ResponseToolkit, body: string, status = 200, formTargets: string[] = []): ResponseObject {
  return h
    .response(body)
    .code(status)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', portalCsp(formTargets))
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'same-origin');
}

/** The session of a form post and its CSRF check: the actor, or the page to answer instead. */
export async function formSession(request: Request, h: ResponseToolkit): Promise<{ actor: Actor; csrf: string } | ResponseObject> {
  const sid = request.state.sid as string | undefined;
  const session = sid ? await resumeSession(sid) : undefined;
  if (!session) return h.redirect('/portal/login').code(303);
  const sent = field((request.payload ?? {}) as Form, 'csrf_token');
  if (!sent || !safeEqual(sent, session.csrfToken))
    return html(h, messagePage('Form refused', 'This form was open too long or in another window. Please reload the page and try again.'), 403);
  return { actor: { ...session.actor, requestId: request.info.id, ip: request.info.remoteAddress }, csrf: session.csrfToken };
}

/** The user's name, its organisation's display name (the clinic's or vendor's name, not its id), and a clinic's recalls for the frame. */
export async function namesFor(actor: Actor): Promise<{ who: string; org: string; recalls?: RecallNav }> {
  const who = actor.fullName || actor.email || 'You';
  if (actor.customer) {
    const [names, recalls] = await Promise.all([customerNames([actor.customer]), customerRecallNav(actor)]);
    return { who, org: names.get(actor.customer) ?? 'Your clinic', recalls };
  }
  if (actor.vendor) return { who, org: (await loadVendorForAuth({ name: actor.vendor }))?.vendor_name ?? 'Your company' };
  return { who, org: '' };
}

// ---- the double-submit token of the forms before a session (login, forgot, reset) -----------------

export const FORM_COOKIE = 'svc_portal_form';

/** A fresh token, set in the SameSite=Strict HttpOnly cookie of the pages before a session; the form carries it too. */
export function withFormToken(h: ResponseToolkit, render: (token: string) => string, status = 200): ResponseObject {
  const token = randomToken(24);
  return html(h, render(token), status).state(FORM_COOKIE, token, {
    isHttpOnly: true,
    isSameSite: 'Strict',
    isSecure: runtime().config.env !== 'development',
    path: '/portal',
    ttl: 3600_000,
    encoding: 'none',
  });
}

/** True when the form's token equals its cookie's. */
export function formTokenOk(request: Request): boolean {
  const cookie = request.state[FORM_COOKIE] as string | undefined;
  const sent = field((request.payload ?? {}) as Form, 'csrf_token');
  return Boolean(cookie && sent && safeEqual(cookie, sent));
}

export const page = (method: 'GET' | 'POST', path: string, handler: (r: Request, h: ResponseToolkit) => unknown, description: string): ServerRoute => ({
  method,
  path,
  options: { auth: { mode: 'try', strategy: 'svc' }, app: { access: 'public' }, description, tags: ['portal'], handler: handler as never },
});

/**
 * A portal page's own session (a GET): the actor (made by the routes' `toActor`, which reads the
 * request's credentials) and its CSRF token, or the answer to give instead: the login page for no
 * session, 403 for credentials that are not a browser session.
 */
export function pageSession(request: Request, h: ResponseToolkit, toActor: (request: Request) => Actor): { actor: Actor; csrf: string } | ResponseObject {
  if (!request.auth.isAuthenticated) return h.redirect('/portal/login').code(303);
  const csrf = (request.auth.artifacts as { csrfToken?: string } | undefined)?.csrfToken;
  if (!csrf) return html(h, messagePage('Portal', 'This page is for a browser session: log in at /portal/login.'), 403);
  return { actor: toActor(request), csrf };
}
