/** Reading the outbox for operators (lists and single rows, e.g. webhook deliveries), on the Outbox model. */
import { Op, type WhereOptions } from 'sequelize';
import { boundLiteral } from '../db/sql-names.js';
import { Outbox, type OutboxStatus } from './outbox.model.js';

/** A row predicate over a table alias, with `$name` binds (a policy scope). */
export type RowScope = (alias: string) => { sql: string; bind: Record<string, unknown> };

export interface OutboxFilter {
  kind: string;
  target?: string;
  status?: OutboxStatus;
  /** one row, by its number or its delivery id */
  id?: number;
  deliveryId?: string;
  /** which rows the reader may see */
  visible?: RowScope;
  limit?: number;
}

/** Rows of one kind, newest first. */
export async function findOutboxRows(f: OutboxFilter): Promise<Outbox[]> {
  const where: WhereOptions<Outbox>[] = [{ kind: f.kind }];
  if (f.target !== undefined) where.push({ target: f.target });
  if (f.status !== undefined) where.push({ status: f.status });
  if (f.id !== undefined) where.push({ id: f.id });
  if (f.deliveryId !== undefined) where.push({ deliveryId: f.deliveryId });
  if (f.visible) {
    const scope = f.visible(`"${Outbox.name}"`);
    where.push(boundLiteral(scope.sql, scope.bind));
  }
  return Outbox.findAll({ where: { [Op.and]: where }, order: [['id', 'DESC']], limit: f.limit });
}

/** The pending rows (all kinds) and how long the oldest due one has been waiting, in seconds. */
export async function outboxBacklog(): Promise<{ pending: number; failed: number; oldest_due_seconds: number | null }> {
  const pending = await Outbox.count({ where: { status: { [Op.in]: ['pending', 'running'] } } });
  const failed = await Outbox.count({ where: { status: 'failed' } });
  const oldest = await Outbox.min<Date | null, Outbox>('nextAttemptAt', { where: { status: 'pending', nextAttemptAt: { [Op.lte]: new Date() } } });
  return { pending, failed, oldest_due_seconds: oldest ? Math.round((Date.now() - new Date(oldest).getTime()) / 1000) : null };
}
