/**
 * The portal's pages before a session: log in, "Forgot password?" (ask for a reset link by e-mail)
 * and the reset page the link opens. Each form carries a double-submit token (a random value in a
 * SameSite=Strict HttpOnly cookie and the form, equal). What was typed comes back after an error
 * (never a password).
 */
import { esc, layout } from './portal-layout.js';

const csrfField = (csrf: string) => `<input type="hidden" name="csrf_token" value="${esc(csrf)}">`;
const problem = (error?: string) => (error ? `<p class="error" id="error" role="alert">${esc(error)}</p>` : '');
const notice = (text?: string) => (text ? `<p class="notice" id="notice">${esc(text)}</p>` : '');

export function loginPage(opts: { csrf: string; error?: string; email?: string; notice?: string }): string {
  return layout(
    'Log in',
    `<main><h1>Log in to the portal</h1>
${notice(opts.notice)}${problem(opts.error)}
<form method="post" action="/portal/login" id="login">
${csrfField(opts.csrf)}
<p><label for="usr">E-mail</label> <input type="email" id="usr" name="usr" autocomplete="username" value="${esc(opts.email ?? '')}"></p>
<p><label for="pwd">Password</label> <input type="password" id="pwd" name="pwd" autocomplete="current-password"></p>
<button type="submit">Log in</button>
</form>
<p><a href="/portal/forgot-password" id="forgot">Forgot password?</a></p></main>`,
  );
}

export function forgotPasswordPage(opts: { csrf: string; error?: string; email?: string }): string {
  return layout(
    'Reset your password',
    `<main><h1>Reset your password</h1>
<p>Enter the e-mail address you log in with. We will send you a link to choose a new password.</p>
${problem(opts.error)}
<form method="post" action="/portal/forgot-password" id="forgot-form">
${csrfField(opts.csrf)}
<p><label for="email">E-mail</label> <input type="email" id="email" name="email" autocomplete="username" value="${esc(opts.email ?? '')}" required></p>
<button type="submit">Send the link</button>
</form>
<p><a href="/portal/login">Back to log in</a></p></main>`,
  );
}

/** The same answer for every address, whether it has an account or not (no enumeration). */
export function resetRequestedPage(email: string, validMinutes: number, perAddressPerHour: number): string {
  return layout(
    'Check your e-mail',
    `<main><h1>Check your e-mail</h1>
<p class="notice" id="notice">If ${esc(email)} has an account, we have sent it a link to choose a new password. The link works once, for ${validMinutes} minutes.</p>
<p>Nothing arrived? Check your spam folder, or <a href="/portal/forgot-password">ask again</a>. At most ${perAddressPerHour} links an hour are sent to one address; each link sent in the last ${validMinutes} minutes still works until it is used.</p>
<p><a href="/portal/login">Back to log in</a></p></main>`,
  );
}

export function resetPasswordPage(opts: { csrf: string; token: string; error?: string }): string {
  return layout(
    'Choose a new password',
    `<main><h1>Choose a new password</h1>
${problem(opts.error)}
<form method="post" action="/portal/reset-password" id="reset-form">
${csrfField(opts.csrf)}
<input type="hidden" name="token" value="${esc(opts.token)}">
<p><label for="password">New password</label> <input type="password" id="password" name="password" autocomplete="new-password" minlength="10" required></p>
<p><label for="password_again">Repeat it</label> <input type="password" id="password_again" name="password_again" autocomplete="new-password" minlength="10" required></p>
<p>At least 10 characters. Every device logged in to your account is logged out.</p>
<button type="submit">Set the new password</button>
</form></main>`,
  );
}

export function resetLinkDeadPage(): string {
  return layout(
    'Link no longer valid',
    `<main><h1>This link no longer works</h1>
<p class="error" id="error" role="alert">This password reset link was already used, has expired (links work for one hour) or is not complete. Please ask for a new one.</p>
<p><a href="/portal/forgot-password" id="ask-again">Ask for a new link</a> · <a href="/portal/login">Back to log in</a></p></main>`,
  );
}
