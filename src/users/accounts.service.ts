/**
 * Account administration reads and switches (`svc user list|disable|enable`); the audited entry
 * points are in src/audit/user-admin.service.ts (the lowest domain that may write the audit trail).
 */
import { Op } from 'sequelize';
import type { Tx } from '../db/sequelize.js';
import { authorize, type AccessActor as Actor } from '../shared/access.js';
import { InputError } from '../shared/errors.js';
import { ROLES, type Role } from './roles.js';
import { User } from './user.model.js';
import type { UserRow } from './user-row.js';
import { byEmail } from './users.service.js';

/** A user as `svc user list` shows it: the row and its last login. */
export interface UserSummary extends UserRow {
  last_login_at: Date | null;
}

/** Users by e-mail, optionally those holding one role. */
export async function listUsers(actor: Actor, filters: { role?: string; limit?: number } = {}): Promise<UserSummary[]> {
  authorize(actor, 'read', 'User');
  if (filters.role && !(ROLES as readonly string[]).includes(filters.role)) throw new InputError(`Unknown role "${filters.role}" (roles: ${ROLES.join(', ')})`);
  const rows = await User.findAll({
    where: filters.role ? { roles: { [Op.contains]: [filters.role as Role] } } : {},
    order: [['email', 'ASC']],
    limit: Math.min(filters.limit ?? 500, 5000),
  });
  return rows.map((u) => ({
    id: u.id,
    email: u.email,
    full_name: u.fullName,
    roles: u.roles,
    enabled: u.enabled,
    customer: u.customer,
    sales_person: u.salesPerson,
    vendor: u.vendor,
    last_login_at: u.lastLoginAt,
  }));
}

/** Sets a user's enabled flag (in the caller's transaction); answers the user's id and whether it changed. */
export async function storeUserEnabled(email: string, enabled: boolean, opts: { transaction: Tx }): Promise<{ id: string; changed: boolean } | undefined> {
  const user = await User.findOne({
    attributes: ['id', 'enabled'],
    where: byEmail(email),
    lock: opts.transaction.LOCK.UPDATE,
    transaction: opts.transaction,
  });
  if (!user) return undefined;
  if (user.enabled !== enabled) await User.update({ enabled }, { where: { id: user.id }, transaction: opts.transaction });
  return { id: user.id, changed: user.enabled !== enabled };
}
