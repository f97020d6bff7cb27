/**
 * A customer's login invitation: with `send_invitation`, the customer account's transaction creates
 * the login (a User with the Customer role linked to it, no password) and queues the invitation mail
 * with a one-time token (only its sha256 stored, sealed in the outbox row), with which the invitee
 * sets its password (acceptCustomerInvitation). An e-mail that already has a user is refused (409).
 */
import { systemActor, type Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { CUSTOMER_LOGIN_ROLES } from '../auth/policy/sales.rules.js';
import { recordAudit } from '../audit/audit.service.js';
import type { Tx } from '../db/sequelize.js';
import { queueMail } from '../mail/mail.service.js';
import { ConflictError } from '../shared/errors.js';
import { createUser, findUserByEmail } from '../users/users.service.js';
import { CustomerInvitation } from './customer-invitation.model.js';
import { acceptanceLines, newInvitationToken, redeemInvitation } from './invitations.js';

/** The customer a login is made for. */
export interface InvitedCustomer {
  name: string;
  customerName: string;
  territory: string | null;
  assignedRep: string | null;
  email: string;
}

/** Queues the invitation mail to the new login. */
function queueInvitationMail(customer: InvitedCustomer, email: string, token: string, expiresAt: Date, transaction: Tx): Promise<unknown> {
  return queueMail(transaction, {
    to: email,
    category: 'customer-invitation',
    subject: `Your ${customer.customerName} account is ready`,
    text: [
      `Hello ${customer.customerName},`,
      '',
      `An account (${customer.name}) has been opened for you; sign in as ${email} to order.`,
      '',
      ...acceptanceLines('svc.customer_accounts.accept_invitation', email, expiresAt),
    ].join('\n'),
    // the outbox row keeps the token sealed; it is put into the text only when the mail is sent
    secrets: { token },
  });
}

/** Creates the customer's login (Customer role, no password) and queues its invitation, in the caller's transaction. */
export async function inviteCustomerLogin(actor: Actor, customer: InvitedCustomer, transaction: Tx): Promise<{ email: string; expiresAt: Date }> {
  authorize(actor, 'invite', 'Customer', { name: customer.name, territory: customer.territory, assigned_rep: customer.assignedRep });
  // an e-mail that already signs in (a staff member, another clinic's buyer) never gets a second account
  if (await findUserByEmail(customer.email)) {
    throw new ConflictError(
      `A user with e-mail ${customer.email} already exists: no login created (pass --no-invite, or another --email)`,
      'DuplicateEntryError',
    );
  }
  // the policy allowed the invitation; the account itself is made as the system makes accounts
  const user = await createUser(
    systemActor('sales:invite_customer', 'job'),
    { email: customer.email, full_name: customer.customerName, roles: CUSTOMER_LOGIN_ROLES, customer: customer.name },
    { transaction },
  );
  const { token, tokenHash, expiresAt } = newInvitationToken();
  await CustomerInvitation.create(
    { tokenHash, userId: user.id, email: user.email, customer: customer.name, invitedBy: actor.email ?? actor.id, expiresAt },
    { transaction },
  );
  await queueInvitationMail(customer, user.email, token, expiresAt, transaction);
  await recordAudit(transaction, actor, {
    action: 'invite',
    object_type: 'User',
    object_name: user.email,
    detail: { customer: customer.name, roles: CUSTOMER_LOGIN_ROLES, expires_at: expiresAt.toISOString() },
  });
  return { email: user.email, expiresAt };
}

/**
 * Sets an invited customer's password with the invitation's one-time token (public; a used, expired
 * or unknown token is refused alike, 417). The password rule is the sub-rep invitation's (10+ characters).
 */
export function acceptCustomerInvitation(input: { token: string; password: string }): Promise<{ email: string; customer: string }> {
  return redeemInvitation(
    input,
    (where, transaction) => CustomerInvitation.findOne({ where, lock: transaction.LOCK.UPDATE, transaction }),
    async (invitation, transaction) => {
      await recordAudit(transaction, systemActor('customer_accounts:accept_invitation', 'job'), {
        action: 'accept_invitation',
        object_type: 'User',
        object_name: invitation.email,
        detail: { customer: invitation.customer },
      });
      return { email: invitation.email, customer: invitation.customer };
    },
  );
}
