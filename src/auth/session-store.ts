/** Sessions as other domains may touch them: only ending all of a user's (a new password does that). */
import type { Tx } from '../db/sequelize.js';
import { Session } from './session.model.js';

/** Ends every session of a user; answers how many there were. */
export async function endUserSessions(userId: string, opts: { transaction?: Tx } = {}): Promise<number> {
  return Session.destroy({ where: { userId }, transaction: opts.transaction });
}
