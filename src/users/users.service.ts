import Joi from 'joi';
import { execute, selectOne, type Tx } from '../db/sequelize.js';
import { hashPassword } from '../shared/crypto.js';
import { ConflictError, InputError, NotFoundError } from '../shared/errors.js';
import { ROLES, type Actor, type Role } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';

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
  email: Joi.string().email({ tlds: false }).required(),
  full_name: Joi.string().allow('').max(140),
  password: Joi.string().min(10).max(200),
  roles: Joi.array().items(Joi.string().valid(...ROLES)).min(1).required(),
  customer: Joi.string().allow(null),
  sales_person: Joi.string().allow(null),
  vendor: Joi.string().allow(null),
});

/** Creates a user (admin or CLI). Passwords are hashed with scrypt. */
export async function createUser(actor: Actor, input: NewUser, opts: { transaction?: Tx } = {}): Promise<{ id: string; email: string; roles: Role[] }> {
  authorize(actor, 'create', 'User');
  const { value, error } = newUserSchema.validate(input);
  if (error) throw new InputError(error.details[0].message.replace(/"/g, ''));
  const exists = await selectOne(`SELECT 1 FROM users WHERE lower(email) = lower($1)`, [value.email], opts);
  if (exists) throw new ConflictError(`User ${value.email} already exists`, 'DuplicateEntryError');
  const hash = value.password ? await hashPassword(value.password) : null;
  const [row] = await execute<{ id: string }>(
    `INSERT INTO users (email, full_name, password_hash, roles, customer, sales_person, vendor)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
    [value.email, value.full_name ?? '', hash, value.roles, value.customer ?? null, value.sales_person ?? null, value.vendor ?? null],
    opts,
  );
  return { id: row.id, email: value.email, roles: value.roles };
}

/** Sets a user's password and ends its sessions. */
export async function setPassword(actor: Actor, email: string, password: string): Promise<void> {
  authorize(actor, 'update', 'User');
  if (!password || password.length < 10) throw new InputError('Password must have at least 10 characters');
  const hash = await hashPassword(password);
  const rows = await execute<{ id: string }>(`UPDATE users SET password_hash = $2, updated_at = now() WHERE lower(email) = lower($1) RETURNING id`, [email, hash]);
  if (!rows[0]) throw new NotFoundError(`User ${email} not found`);
  await execute(`DELETE FROM sessions WHERE user_id = $1`, [rows[0].id]);
}

export async function findUserByEmail(email: string): Promise<{ id: string; email: string; roles: Role[]; enabled: boolean } | undefined> {
  return selectOne(`SELECT id, email, roles, enabled FROM users WHERE lower(email) = lower($1)`, [email]);
}
