/**
 * Vendor self-registration (svc.api.register_vendor): a Vendor user and its Vendor Profile in Pending
 * Approval, for admin review. The address is taken in its canonical form (shared/email.ts).
 */
import Joi from 'joi';
import { systemActor } from '../auth/actor.js';
import { VENDOR_ROLE } from '../auth/policy/roles.js';
import { recordAudit } from '../audit/audit.service.js';
import { selectRows, withTransaction, type Tx } from '../db/sequelize.js';
import { queueMail, type MailMessage } from '../mail/mail.service.js';
import { hashPassword } from '../shared/crypto.js';
import { requireCanonicalEmail } from '../shared/email.js';
import { InputError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';
import { createUser, emailTaken } from '../users/users.service.js';
import { VendorProfile } from './vendor-profile.model.js';

interface Registration {
  sales_representative_name: string;
  email: string;
  password: string;
  country: string;
  profile_url?: string | null;
  vendor_name?: string;
}

const registration = Joi.object<Registration>({
  sales_representative_name: Joi.string().trim().min(1).max(140).required(),
  email: Joi.string().trim().email({ tlds: false }).max(255).required(),
  password: Joi.string().min(10).max(200).required(),
  country: Joi.string().trim().min(1).max(100).required(),
  profile_url: Joi.string()
    .trim()
    .uri({ scheme: ['http', 'https'] })
    .max(500)
    .allow('', null),
  vendor_name: Joi.string().trim().max(140),
});

/** What register_vendor did: `name` only when it made a profile (the HTTP answer never shows it). */
export interface RegistrationResult {
  name?: string;
  email: string;
  status: 'Pending Approval';
}

/**
 * svc.api.register_vendor: a Vendor user and its Vendor Profile in Pending Approval, for admin review.
 * An address that has an account already gets no second one: the answer is the same as for a new
 * address (with the same cost: the password is hashed either way), and the account is told by e-mail,
 * so the method cannot be used to find out who has an account (issue 24).
 */
export async function registerVendor(input: Record<string, unknown>, opts: { transaction?: Tx } = {}): Promise<RegistrationResult> {
  const validated = registration.validate(input, { abortEarly: true });
  if (validated.error) throw new InputError(validated.error.details[0].message.replace(/"/g, ''));
  const value = { ...validated.value, email: requireCanonicalEmail(validated.value.email) };
  return withTransaction(opts, async (transaction) => {
    if (await emailTaken(value.email, { transaction })) {
      await hashPassword(value.password); // the cost createUser pays for a new address
      await queueMail(transaction, registrationForExistingAccount(value.email));
      return { email: value.email, status: 'Pending Approval' };
    }
    const [{ n }] = await selectRows<{ n: number }>(`SELECT nextval('vendor_profile_seq') AS n`, [], { transaction });
    const name = `VEN-${String(n).padStart(5, '0')}`;
    await VendorProfile.create(
      {
        name,
        vendorName: value.vendor_name ?? value.sales_representative_name,
        email: value.email,
        country: value.country,
        profileUrl: value.profile_url || null,
      },
      { transaction, returning: false },
    );
    const user = await createUser(
      systemActor('api:register_vendor'),
      { email: value.email, full_name: value.sales_representative_name, password: value.password, roles: [VENDOR_ROLE], vendor: name },
      { transaction },
    );
    await VendorProfile.update({ userId: user.id }, { where: { name }, silent: true, transaction });
    await recordAudit(transaction, systemActor('api:register_vendor'), { action: 'create', object_type: 'Vendor Profile', object_name: name });
    return { name, email: value.email, status: 'Pending Approval' };
  });
}

/** The e-mail to an existing account whose address was used to register a vendor (it names nothing the form sent but the address). */
function registrationForExistingAccount(email: string): MailMessage {
  const { baseUrl } = runtime().config;
  return {
    to: email,
    category: 'vendor-registration-existing',
    subject: 'Vendor registration with your e-mail address',
    text: [
      'Hello,',
      '',
      `Someone asked to register a vendor on the marketplace with this address (${email}), which already has an account.`,
      'No second account was made. If it was you, sign in with your existing account instead:',
      `${baseUrl}/`,
      '',
      'If it was not you, you need not do anything.',
    ].join('\n'),
  };
}
