/** Cutting a user's access at once: API keys revoked, sessions ended (auth owns both tables). */
import type { Tx } from '../db/sequelize.js';
import { ApiKey } from './api-key.model.js';
import { Session } from './session.model.js';

/** Deletes the user's API key pairs; answers how many. */
export async function deleteApiKeysOf(userId: string, opts: { transaction: Tx }): Promise<number> {
  return ApiKey.destroy({ where: { userId }, transaction: opts.transaction });
}

/** Ends every session of the user; answers how many. */
export async function endSessionsOf(userId: string, opts: { transaction: Tx }): Promise<number> {
  return Session.destroy({ where: { userId }, transaction: opts.transaction });
}
