/**
 * svc.subrep_team (issue 14): a rep invites a sub-representative. One transaction creates the Sales
 * Person below the rep (its territory, its fixed slice `subrep_pct` of the base commission, bounded
 * by the rep's own plan), the User (Sales Rep, no password yet) and the invitation e-mail (outbox);
 * the e-mail carries a one-time token (72 h by default, only its sha256 stored) with which the
 * invitee sets its password (accept_invitation). The token never sits in plain text at rest: the
 * outbox row holds it sealed with the service key, and the worker puts it into the text when sending.
 */
import { systemActor, type Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { canInviteSubrep, SUBREP_ROLES } from '../auth/policy/sales.rules.js';
import { withTransaction, type Tx } from '../db/sequelize.js';
import { queueMail } from '../mail/mail.service.js';
import { findSalesPersons, freeSalesPersonName, insertSalesPerson, type SalesPersonFacts } from '../org/org.service.js';
import { BusinessRuleError, PermissionError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';
import { createUser } from '../users/users.service.js';
import { planOf } from './plans.js';
import { SalesInvitation } from './sales-invitation.model.js';
import { acceptanceLines, newInvitationToken, redeemInvitation } from './invitations.js';

export interface InviteInput {
  email: string;
  full_name: string;
  subrep_pct: number;
}

/** Invites a sub-rep below the calling rep: Sales Person, User and invitation e-mail in one transaction. */
export async function inviteSubrep(
  actor: Actor,
  input: InviteInput,
): Promise<{
  email: string;
  full_name: string;
  sales_person: string;
  parent_sales_person: string;
  subrep_pct: number;
  territory: string | null;
  invitation_expires_at: string;
}> {
  authorize(actor, 'invite', 'Sales Dashboard');
  return withTransaction(undefined, async (transaction) => {
    const inviter = await inviterOf(actor, input, transaction);
    const name = await freeSalesPersonName(input.full_name, { transaction });
    await insertSalesPerson(
      { name, fullName: input.full_name, parent: inviter.name, territory: inviter.territory, subrepPct: input.subrep_pct, plan: inviter.plan },
      { transaction },
    );
    // the policy allowed the invitation; the account itself is made as the system makes accounts
    const user = await createUser(
      systemActor('sales:invite_subrep', 'job'),
      { email: input.email, full_name: input.full_name, roles: SUBREP_ROLES, sales_person: name },
      { transaction },
    );
    const expiresAt = await sendInvitation(transaction, inviter, { ...user, salesPerson: name }, input);
    return {
      email: user.email,
      full_name: input.full_name,
      sales_person: name,
      parent_sales_person: inviter.name,
      subrep_pct: input.subrep_pct,
      territory: inviter.territory,
      invitation_expires_at: expiresAt.toISOString(),
    };
  });
}

/** The calling rep's Sales Person, when it may invite (a rep, not a sub-rep) a sub-rep of this share (at most its plan's). */
async function inviterOf(actor: Actor, input: InviteInput, transaction: Tx): Promise<SalesPersonFacts> {
  const inviterName = actor.salesPerson ?? '';
  const inviter = (await findSalesPersons([inviterName], { transaction })).get(inviterName);
  if (!canInviteSubrep(actor, inviter && { isSubrep: inviter.subrep_pct !== null })) {
    throw new PermissionError('Only a sales rep (not a sub-rep) invites sub-representatives');
  }
  const { key, plan } = planOf(runtime().config.sales, inviter!.plan);
  if (input.subrep_pct > plan.maxSubrepPct) {
    throw new BusinessRuleError(`subrep_pct must be at most ${plan.maxSubrepPct} (the limit of your ${key} plan)`);
  }
  return inviter!;
}

/** The invitation (its one-time token, only the hash stored) and its e-mail, queued; answers when it expires. */
async function sendInvitation(
  transaction: Tx,
  inviter: SalesPersonFacts,
  user: { id: string; email: string; salesPerson: string },
  input: InviteInput,
): Promise<Date> {
  const { token, tokenHash, expiresAt } = newInvitationToken();
  await SalesInvitation.create(
    { tokenHash, userId: user.id, email: user.email, salesPerson: user.salesPerson, invitedBy: inviter.name, expiresAt },
    { transaction },
  );
  await queueMail(transaction, {
    to: user.email,
    category: 'subrep-invitation',
    subject: `${inviter.full_name} invites you to the sales team`,
    text: [
      `Hello ${input.full_name},`,
      '',
      `${inviter.full_name} invites you to join the sales team as a sub-representative${inviter.territory ? ` in ${inviter.territory}` : ''}.`,
      `Your share: ${input.subrep_pct}% of the base commission of your own sales.`,
      '',
      ...acceptanceLines('svc.subrep_team.accept_invitation', user.email, expiresAt),
    ].join('\n'),
    // the outbox row keeps the token sealed; it is put into the text only when the mail is sent
    secrets: { token },
  });
  return expiresAt;
}

/** Sets the invited sub-rep's password with the invitation's one-time token (a used, expired or unknown token is refused alike). */
export function acceptInvitation(input: { token: string; password: string }): Promise<{ email: string; sales_person: string }> {
  return redeemInvitation(
    input,
    (where, transaction) => SalesInvitation.findOne({ where, lock: transaction.LOCK.UPDATE, transaction }),
    (invitation) => Promise.resolve({ email: invitation.email, sales_person: invitation.salesPerson }),
  );
}
