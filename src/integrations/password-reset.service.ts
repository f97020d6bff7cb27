/**
 * Password reset by e-mail, asked from the portal's login page (issue 26 section 3). The token's
 * design is the invitations' (src/sales/invitations.ts): 32 random bytes, only its sha256 stored,
 * sealed in the outbox row and put into the mail only when it is sent, spent by its first use. It
 * lives one hour (database time). Asking answers the same whether the address has an account or
 * not; only an enabled account gets a mail. Asks are counted per address asked for and per client
 * address (rate_counters, clock hours) before the account is looked up, so a limit says nothing about
 * an account either. Past the client's limit the ask is refused (429). Past the address's limit the
 * ask answers as usual but sends nothing more: a stranger asking again and again for someone's
 * address would otherwise keep its owner from asking at all, whereas the links already sent in the
 * hour reached that owner's mailbox and still work. A reset ends every session of the user, spends
 * every other open link of it and lifts a lockout after failed logins.
 */
import { Op, fn, literal } from 'sequelize';
import { clearLoginLockout, endUserSessions, loadUserActor, newPasswordHash } from '../auth/credentials.service.js';
import { recordAudit } from '../audit/audit.service.js';
import { withTransaction } from '../db/sequelize.js';
import { queueMail } from '../mail/mail.service.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import { canonicalEmail } from '../shared/email.js';
import { BusinessRuleError, RateLimitError } from '../shared/errors.js';
import { hitFixedWindow } from '../shared/rate-limit.js';
import { runtime } from '../shared/runtime.js';
import { findUserByEmail, storePasswordHash } from '../users/users.service.js';
import { PasswordReset } from './password-reset.model.js';

export const RESET_VALID_MINUTES = 60;

/**
 * Counts an ask against both limits (known and unknown addresses alike): 429 past the client's;
 * false past the address's (no further mail this hour, the same answer), else true.
 */
async function countAsk(email: string, client: string | undefined): Promise<boolean> {
  const { perAddressPerHour, perClientPerHour } = runtime().config.passwordReset;
  if (client) {
    const byClient = await hitFixedWindow(`pwreset-ip:${client}`, 3600);
    if (byClient.count > perClientPerHour)
      throw new RateLimitError('Too many password resets asked from this address; try again later', byClient.resetInSeconds);
  }
  const byAddress = await hitFixedWindow(`pwreset:${canonicalEmail(email) ?? email.toLowerCase()}`, 3600);
  return byAddress.count <= perAddressPerHour;
}

function resetMailText(email: string): string {
  const base = runtime().config.baseUrl.replace(/\/+$/, '');
  return [
    'Hello,',
    '',
    `someone (we hope you) asked to reset the password of the portal account ${email}.`,
    `Choose a new password here within ${RESET_VALID_MINUTES} minutes (the link works once):`,
    '',
    `${base}/portal/reset-password?token={{secret:token}}`,
    '',
    'If you did not ask, ignore this e-mail: your password stays as it is.',
  ].join('\n');
}

/**
 * Asks for a reset link for `email`: always resolves the same way for an unknown, a disabled and a
 * known account (the caller shows one answer); only a known enabled account gets the mail.
 */
export async function requestPasswordReset(input: { email: string; client?: string }): Promise<void> {
  const email = input.email.trim();
  if (!(await countAsk(email, input.client))) return;
  const user = email ? await findUserByEmail(email) : undefined;
  if (!user || !user.enabled) return;
  const token = randomToken(32);
  await withTransaction(undefined, async (transaction) => {
    await PasswordReset.create(
      {
        tokenHash: sha256Hex(token),
        userId: user.id,
        email: user.email,
        requestedFrom: input.client ?? null,
        expiresAt: literal(`now() + make_interval(mins => ${RESET_VALID_MINUTES})`) as unknown as Date,
      },
      { transaction, returning: false },
    );
    // the outbox row keeps the token sealed; it is put into the text only when the mail is sent
    await queueMail(transaction, {
      to: user.email,
      category: 'password-reset',
      subject: 'Reset your portal password',
      text: resetMailText(user.email),
      secrets: { token },
    });
  });
}

/** True while the token can still set a password (the reset page asks before showing its form). */
export async function resetTokenUsable(token: string): Promise<boolean> {
  if (!token) return false;
  const row = await PasswordReset.findOne({
    attributes: ['tokenHash'],
    where: { tokenHash: sha256Hex(token), usedAt: null, expiresAt: { [Op.gt]: fn('now') } },
  });
  return row !== null;
}

/** Sets the password with a reset token, once: a used, expired or unknown token is refused alike (417). */
export async function resetPassword(input: { token: string; password: string }): Promise<{ email: string }> {
  const hash = await newPasswordHash(input.password);
  return withTransaction(undefined, async (transaction) => {
    const reset = await PasswordReset.findOne({
      where: { tokenHash: sha256Hex(input.token), usedAt: null, expiresAt: { [Op.gt]: fn('now') } },
      lock: transaction.LOCK.UPDATE,
      transaction,
    });
    if (!reset) throw new BusinessRuleError('This password reset link is unknown, used or expired');
    const userId = await storePasswordHash(reset.email, hash, { transaction });
    if (userId !== reset.userId) throw new BusinessRuleError('This password reset link is unknown, used or expired');
    // this link and every other open one of the user are spent; every session of the user ends
    await PasswordReset.update({ usedAt: fn('now') }, { where: { userId, usedAt: null }, transaction });
    await endUserSessions(userId, { transaction });
    await clearLoginLockout(reset.email, { transaction });
    const actor = await loadUserActor(userId, 'session', { transaction });
    if (actor)
      await recordAudit(transaction, actor, {
        action: 'update',
        object_type: 'User',
        object_name: reset.email,
        fields: ['password'],
        detail: { via: 'password reset link' },
      });
    return { email: reset.email };
  });
}
