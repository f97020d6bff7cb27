/**
 * Users: accounts, passwords and doctor verification, on the User model (table users). An account's
 * e-mail is stored and looked up in its canonical form (shared/email.ts), the only one.
 *
 * users sits below auth (auth reads accounts to build actors and check passwords), so it imports
 * nothing from auth: it asks the policy through the shared access port (plugged by src/modules.ts),
 * whose AccessActor auth/actor.ts widens to the service's Actor; ending sessions is auth's part.
 */
import Joi from 'joi';
import { Op, fn, literal, type WhereOptions } from 'sequelize';
import type { Tx } from '../db/sequelize.js';
import { columnsOf } from '../db/sql-names.js';
import { hashPassword } from '../shared/crypto.js';
import { canonicalEmail, requireCanonicalEmail } from '../shared/email.js';
import { ConflictError, InputError } from '../shared/errors.js';
import { authorize, type AccessActor as Actor } from '../shared/access.js';
import { ROLES, type Role } from './roles.js';
import { User } from './user.model.js';

export interface NewUser {
  email: string;
  full_name?: string;
  password?: string;
  roles: Role[];
  customer?: string | null;
  sales_person?: string | null;
  vendor?: string | null;
}

const newUserSchema = Joi.object<NewUser>({
  email: Joi.string().trim().email({ tlds: false }).required(),
  full_name: Joi.string().allow('').max(140),
  password: Joi.string().min(10).max(200),
  roles: Joi.array()
    .items(Joi.string().valid(...ROLES))
    .min(1)
    .required(),
  customer: Joi.string().allow(null),
  sales_person: Joi.string().allow(null),
  vendor: Joi.string().allow(null),
});

/**
 * The account of an address: its canonical form, compared exactly (stored addresses are canonical;
 * the unique index users_email_canonical_key). An address without one names no account.
 */
export function byEmail(email: string): WhereOptions<User> {
  return { email: canonicalEmail(email) ?? NO_ACCOUNT };
}
/** Never stored (an account's address has an @): the lookup of an address that cannot be canonicalised. */
const NO_ACCOUNT = '';

/** Creates a user (admin or CLI). Passwords are hashed with scrypt. */
export async function createUser(actor: Actor, input: NewUser, opts: { transaction?: Tx } = {}): Promise<{ id: string; email: string; roles: Role[] }> {
  authorize(actor, 'create', 'User');
  const validated = newUserSchema.validate(input);
  if (validated.error) throw new InputError(validated.error.details[0].message.replace(/"/g, ''));
  const value = { ...validated.value, email: requireCanonicalEmail(validated.value.email) };
  if (await emailTaken(value.email, opts)) throw new ConflictError(`User ${value.email} already exists`, 'DuplicateEntryError');
  const hash = value.password ? await hashPassword(value.password) : null;
  const user = await User.create(
    {
      email: value.email,
      fullName: value.full_name ?? '',
      passwordHash: hash,
      roles: value.roles,
      customer: value.customer ?? null,
      salesPerson: value.sales_person ?? null,
      vendor: value.vendor ?? null,
    },
    { transaction: opts.transaction },
  );
  return { id: user.id, email: value.email, roles: value.roles };
}

/** True when an account has this address (in its canonical form). */
export async function emailTaken(email: string, opts: { transaction?: Tx } = {}): Promise<boolean> {
  return (await User.findOne({ attributes: ['id'], where: byEmail(email), transaction: opts.transaction })) !== null;
}

/**
 * Stores a new password hash (auth's setPassword checks the actor and the password, then ends the
 * user's sessions in the same transaction); answers the user's id, or undefined when there is none.
 */
export async function storePasswordHash(email: string, hash: string, opts: { transaction?: Tx } = {}): Promise<string | undefined> {
  const [, rows] = await User.update({ passwordHash: hash }, { where: byEmail(email), returning: ['id'], transaction: opts.transaction });
  return rows[0]?.id;
}

export async function findUserByEmail(email: string): Promise<{ id: string; email: string; roles: Role[]; enabled: boolean } | undefined> {
  const user = await User.findOne({ attributes: ['id', 'email', 'roles', 'enabled'], where: byEmail(email) });
  return user ? { id: user.id, email: user.email, roles: user.roles, enabled: user.enabled } : undefined;
}

// ---- for the credentials service (auth) ---------------------------------------------------------

/** The password check's view of a user (the only read of the hash). */
export async function findLoginUser(email: string): Promise<{ id: string; password_hash: string | null; enabled: boolean } | undefined> {
  const user = await User.scope('withPassword').findOne({ attributes: ['id', 'passwordHash', 'enabled'], where: byEmail(email) });
  return user ? { id: user.id, password_hash: user.passwordHash, enabled: user.enabled } : undefined;
}

/** Stamps a successful login (updated_at stays: a login changes no account data). */
export async function recordLogin(userId: string, opts: { transaction?: Tx } = {}): Promise<void> {
  await User.update({ lastLoginAt: fn('now') }, { where: { id: userId }, silent: true, transaction: opts.transaction });
}

/** A user by id or e-mail, locked for the caller's transaction. */
export async function lockUser(target: { userId?: string; email?: string }, opts: { transaction: Tx }): Promise<{ id: string; email: string } | undefined> {
  const user = await User.findOne({
    attributes: ['id', 'email'],
    where: target.userId ? { id: target.userId } : byEmail(target.email ?? ''),
    lock: opts.transaction.LOCK.UPDATE,
    transaction: opts.transaction,
  });
  return user ? { id: user.id, email: user.email } : undefined;
}

// ---- doctor verification (for the orders domain) -----------------------------------------------

export interface DoctorFields {
  email: string;
  doctor_npi: string | null;
  doctor_dea_number: string | null;
  /** server-local `YYYY-MM-DD HH:MM:SS`, null until verified */
  doctor_verified_at: string | null;
  doctor_verified_by: string | null;
}

/** Records a doctor verification on the account; false when there is no such user. */
export async function setDoctorVerification(
  email: string,
  v: { npi: string; dea: string; deaLicenseFile: string | null; by: string },
  opts: { transaction?: Tx } = {},
): Promise<boolean> {
  const [count] = await User.update(
    {
      doctorNpi: v.npi,
      doctorDeaNumber: v.dea,
      doctorVerifiedBy: v.by,
      doctorVerifiedAt: fn('now'),
      ...(v.deaLicenseFile ? { doctorDeaLicenseFile: v.deaLicenseFile } : {}), // an earlier certificate stays when none is given
    },
    { where: byEmail(email), transaction: opts.transaction },
  );
  return count > 0;
}

/** The doctor fields of an account (undefined: no such user). */
export async function doctorFieldsOf(email: string, opts: { transaction?: Tx } = {}): Promise<DoctorFields | undefined> {
  const c = columnsOf(User);
  const row = (await User.findOne({
    attributes: [
      [c.email, 'email'],
      [c.doctorNpi, 'doctor_npi'],
      [c.doctorDeaNumber, 'doctor_dea_number'],
      [literal(`to_char(${c.doctorVerifiedAt}, 'YYYY-MM-DD HH24:MI:SS')`), 'doctor_verified_at'],
      [c.doctorVerifiedBy, 'doctor_verified_by'],
    ],
    where: byEmail(email),
    raw: true,
    transaction: opts.transaction,
  })) as unknown as DoctorFields | null;
  return row ?? undefined;
}

/** A user's own doctor state (the NPI it was verified with). */
export async function doctorStateOf(userId: string, opts: { transaction?: Tx } = {}): Promise<{ npi: string | null; verified: boolean } | undefined> {
  const user = await User.findByPk(userId, { attributes: ['doctorNpi', 'doctorVerifiedAt'], transaction: opts.transaction });
  return user ? { npi: user.doctorNpi, verified: user.doctorVerifiedAt !== null } : undefined;
}

/** True when an enabled, verified doctor of `customer` holds this NPI. */
export async function hasVerifiedDoctor(npi: string, customer: string, opts: { transaction?: Tx } = {}): Promise<boolean> {
  const n = await User.count({ where: { doctorNpi: npi, doctorVerifiedAt: { [Op.ne]: null }, enabled: true, customer }, transaction: opts.transaction });
  return n > 0;
}

/** The e-mail of each user id given that names a user (the audit trail's review shows who acted). */
export async function emailsOfUsers(ids: string[], opts: { transaction?: Tx } = {}): Promise<Map<string, string>> {
  const uuids = [...new Set(ids.filter((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)))];
  if (uuids.length === 0) return new Map();
  const users = await User.findAll({ attributes: ['id', 'email'], where: { id: uuids }, transaction: opts.transaction });
  return new Map(users.map((u) => [u.id, u.email]));
}

/** The e-mails of the enabled users holding any of these roles (who is told when something waits for them). */
export async function emailsOfRoleHolders(roles: readonly Role[], opts: { transaction?: Tx } = {}): Promise<string[]> {
  const users = await User.findAll({
    attributes: ['email'],
    where: { enabled: true, roles: { [Op.overlap]: [...roles] } },
    order: [['email', 'ASC']],
    transaction: opts.transaction,
  });
  return users.map((u) => u.email);
}
