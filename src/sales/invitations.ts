/**
 * The one-time invitations of the sales domain (a sub-rep's, issue 14; a customer login's, issue 15):
 * how a token is made and kept (only its sha256 stored, `sales.invitationHours` to live), what the
 * e-mail says to accept it, and how it is redeemed (a used, expired or unknown token refused alike).
 * Each kind keeps its own table, so a token of one is never accepted by the other's method.
 */
import { Op, type WhereOptions } from 'sequelize';
import { withTransaction, type Tx } from '../db/sequelize.js';
import { hashPassword, randomToken, sha256Hex } from '../shared/crypto.js';
import { BusinessRuleError, InputError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';
import { storePasswordHash } from '../users/users.service.js';
import { formatInstant } from '../shared/time.js';

/** A new invitation token: the token goes (sealed) into the e-mail, only its hash into the table. */
export function newInvitationToken(): { token: string; tokenHash: string; expiresAt: Date } {
  const token = randomToken(32);
  return { token, tokenHash: sha256Hex(token), expiresAt: new Date(Date.now() + runtime().config.sales.invitationHours * 3_600_000) };
}

/** The e-mail's closing lines: how to accept with `method` (the token is the sealed `{{secret:token}}` slot). */
export function acceptanceLines(method: string, email: string, expiresAt: Date): string[] {
  return [
    `Set your password to accept (the invitation expires ${formatInstant(expiresAt)}):`,
    `POST ${runtime().config.baseUrl}/api/method/${method} with {"token": "{{secret:token}}", "password": "<at least 10 characters>"}`,
    `Then sign in as ${email}.`,
  ];
}

interface OpenInvitation {
  email: string;
  acceptedAt: Date | null;
  save(opts: { transaction: Tx }): Promise<unknown>;
}

/**
 * Sets the invited user's password with a one-time token: `find` locks the open invitation matching
 * `where` (its table's), which is then marked accepted, and `then` answers in the same transaction.
 */
export async function redeemInvitation<I extends OpenInvitation, R>(
  input: { token: string; password: string },
  find: (where: WhereOptions, transaction: Tx) => Promise<I | null>,
  then: (invitation: I, transaction: Tx) => Promise<R>,
): Promise<R> {
  if (input.password.length < 10) throw new InputError('Password must have at least 10 characters');
  const hash = await hashPassword(input.password);
  return withTransaction(undefined, async (transaction) => {
    const invitation = await find({ tokenHash: sha256Hex(input.token), acceptedAt: null, expiresAt: { [Op.gt]: new Date() } }, transaction);
    if (!invitation) throw new BusinessRuleError('This invitation is unknown, used or expired');
    await storePasswordHash(invitation.email, hash, { transaction });
    invitation.acceptedAt = new Date();
    await invitation.save({ transaction });
    return then(invitation, transaction);
  });
}
