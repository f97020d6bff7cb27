/**
 * Audited account administration (`svc user disable|enable|revoke-keys`): each change and its audit
 * row in one transaction. It lives in the audit domain because that is the lowest domain that may
 * both change accounts (users, auth) and write the trail (docs/decisions.md "Operations toolkit (issue 15)").
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { forgetApiKeys } from '../auth/api-key-cache.js';
import { deleteApiKeysOf, endSessionsOf } from '../auth/user-access.service.js';
import { withTransaction } from '../db/sequelize.js';
import { NotFoundError } from '../shared/errors.js';
import { lockUser } from '../users/users.service.js';
import { storeUserEnabled } from '../users/accounts.service.js';
import { recordAudit } from './audit.service.js';

/**
 * Disables (sessions ended, keys kept but refused) or enables a user; a disabled user is out at once,
 * by API key too (at once: within SVC_API_KEY_CACHE_MS if a serve's notification connection is down).
 */
export async function setUserEnabled(
  actor: Actor,
  email: string,
  enabled: boolean,
): Promise<{ email: string; enabled: boolean; changed: boolean; sessions_ended: number }> {
  authorize(actor, 'update', 'User');
  const done = await withTransaction(undefined, async (transaction) => {
    const r = await storeUserEnabled(email, enabled, { transaction });
    if (!r) throw new NotFoundError(`User ${email} not found`);
    const ended = enabled ? 0 : await endSessionsOf(r.id, { transaction });
    if (r.changed)
      await recordAudit(transaction, actor, { action: enabled ? 'enable' : 'disable', object_type: 'User', object_name: email, fields: ['enabled'] });
    return { email, enabled, changed: r.changed, sessions_ended: ended };
  });
  forgetApiKeys(); // committed: this process forgets before the notification arrives (every serve forgets at it)
  return done;
}

/** Revokes every API key of a user (its scripts stop at once: within SVC_API_KEY_CACHE_MS if a serve's notification connection is down); sessions stay. */
export async function revokeApiKeys(actor: Actor, email: string): Promise<{ email: string; revoked: number }> {
  authorize(actor, 'update', 'User');
  const done = await withTransaction(undefined, async (transaction) => {
    const user = await lockUser({ email }, { transaction });
    if (!user) throw new NotFoundError(`User ${email} not found`);
    const revoked = await deleteApiKeysOf(user.id, { transaction });
    await recordAudit(transaction, actor, { action: 'revoke', object_type: 'API Key', object_name: user.email, detail: { revoked } });
    return { email: user.email, revoked };
  });
  forgetApiKeys(); // as above
  return done;
}
