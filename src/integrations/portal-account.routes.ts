/**
 * The portal's pages before a session: log in, log out, and the password reset by e-mail ("Forgot
 * password?" → the link in the mail → a new password). Each form carries a double-submit token
 * (portal-http.ts). Asking for a reset answers the same page for every address (no enumeration);
 * the limits of password-reset.service.ts answer 429 in words. The reset link's token travels in
 * the page's form (a hidden field), never in a log: the access log drops query strings.
 */
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { endSession, login } from '../auth/credentials.service.js';
import { clientAddress } from '../http/pre.js';
import { DomainError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';
import { forgotPasswordPage, loginPage, resetLinkDeadPage, resetPasswordPage, resetRequestedPage } from './portal-account.page.js';
import { field, FORM_COOKIE, formSession, formTokenOk, html, page, withFormToken, type Form } from './portal-http.js';
import { plainError } from './portal-messages.js';
import { RESET_VALID_MINUTES, requestPasswordReset, resetPassword, resetTokenUsable } from './password-reset.service.js';

const EXPIRED_FORM = 'This page was open too long. Please try again.';

function showLogin(h: ResponseToolkit, opts: { error?: string; email?: string; notice?: string } = {}, status = 200) {
  return withFormToken(h, (csrf) => loginPage({ csrf, ...opts }), status);
}

async function doLogin(request: Request, h: ResponseToolkit) {
  const form = (request.payload ?? {}) as Form;
  const email = field(form, 'usr').trim();
  if (!formTokenOk(request)) return showLogin(h, { error: EXPIRED_FORM, email }, 403);
  try {
    const result = await login(email, field(form, 'pwd'), { ip: clientAddress(request), userAgent: request.headers['user-agent'] });
    return h
      .redirect('/portal/integrations')
      .code(303)
      .state('sid', result.sid, { ttl: result.maxAgeSeconds * 1000 })
      .unstate(FORM_COOKIE, { path: '/portal' });
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return showLogin(h, { error: plainError(err), email }, err.status);
  }
}

async function doLogout(request: Request, h: ResponseToolkit) {
  const session = await formSession(request, h);
  if (!('actor' in session)) return session;
  await endSession(request.state.sid as string);
  return h.redirect('/portal/login').code(303).unstate('sid');
}

async function askReset(request: Request, h: ResponseToolkit) {
  const email = field((request.payload ?? {}) as Form, 'email').trim();
  const again = (error: string, status: number) => withFormToken(h, (csrf) => forgotPasswordPage({ csrf, error, email }), status);
  if (!formTokenOk(request)) return again(EXPIRED_FORM, 403);
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254) return again('Please enter the e-mail address you log in with.', 400);
  try {
    await requestPasswordReset({ email, client: clientAddress(request) });
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return again(plainError(err), err.status);
  }
  return html(h, resetRequestedPage(email, RESET_VALID_MINUTES, runtime().config.passwordReset.perAddressPerHour));
}

async function showReset(request: Request, h: ResponseToolkit) {
  const token = typeof request.query.token === 'string' ? request.query.token : '';
  if (!(await resetTokenUsable(token))) return html(h, resetLinkDeadPage(), 410);
  return withFormToken(h, (csrf) => resetPasswordPage({ csrf, token }));
}

async function doReset(request: Request, h: ResponseToolkit) {
  const form = (request.payload ?? {}) as Form;
  const token = field(form, 'token');
  const again = (error: string, status: number) => withFormToken(h, (csrf) => resetPasswordPage({ csrf, token, error }), status);
  if (!formTokenOk(request)) return again(EXPIRED_FORM, 403);
  const password = field(form, 'password');
  if (password !== field(form, 'password_again')) return again('The two passwords are not the same. Please type them again.', 400);
  try {
    const { email } = await resetPassword({ token, password });
    return showLogin(h, { email, notice: 'Your password is changed. Log in with the new one (every device was logged out).' });
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    if (err.status === 417) return html(h, resetLinkDeadPage(), 410);
    return again(plainError(err), err.status);
  }
}

export const accountRoutes: ServerRoute[] = [
  page('GET', '/portal/login', (_r, h) => showLogin(h), 'The portal login form'),
  page('POST', '/portal/login', doLogin, 'Log in from the portal form (double-submit CSRF token)'),
  page('POST', '/portal/logout', doLogout, 'Log out from the portal (CSRF token of the session)'),
  page('GET', '/portal/forgot-password', (_r, h) => withFormToken(h, (csrf) => forgotPasswordPage({ csrf })), 'Ask for a password reset link by e-mail'),
  page('POST', '/portal/forgot-password', askReset, 'Send a password reset link (the same answer for every address; limited per address and client)'),
  page('GET', '/portal/reset-password', showReset, 'The page of a password reset link (?token=…): choose a new password'),
  page('POST', '/portal/reset-password', doReset, 'Set a new password with a reset link’s token (once; ends the user’s sessions)'),
];
