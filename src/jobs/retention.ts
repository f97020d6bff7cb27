/**
 * The retention of every table that grows with traffic (issue 25 §7): which target keeps its rows
 * how many days (src/config), one batch at a time, and how far each is behind. The targets are the
 * owners' (audit/retention.ts, …), registered from src/modules.ts.
 */
import type { RetentionSettings } from '../config/index.js';
import type { RetentionTarget } from '../db/retention.js';

/** The setting of src/config that holds a target's days. */
export type RetentionDays = keyof Omit<RetentionSettings, 'batchSize'>;

/** Each target with the setting that holds its days, in the order src/modules.ts registers them. */
export const RETENTION: { target: RetentionTarget; days: RetentionDays }[] = [];

/** Puts a table under retention (called from src/modules.ts: each target lives with the domain that owns its table). */
export function registerRetention(target: RetentionTarget, days: RetentionDays): void {
  if (!RETENTION.some((r) => r.target.table === target.table)) RETENTION.push({ target, days });
}

/** Deletes every row past its retention, batch after batch (each its own short statement); answers the counts by table. */
export async function enforceRetention(settings: RetentionSettings): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  for (const { target, days } of RETENTION) {
    let total = 0;
    for (;;) {
      const n = await target.purgeBatch(settings[days], settings.batchSize);
      total += n;
      if (n < settings.batchSize) break;
    }
    deleted[target.table] = total;
  }
  return deleted;
}

/** Per table: its retention in days and how many seconds its oldest deletable row is past it (0: on time). */
export async function retentionLag(settings: RetentionSettings): Promise<{ table: string; days: number; behindSeconds: number }[]> {
  const now = Date.now();
  const out = [];
  for (const { target, days } of RETENTION) {
    const oldest = await target.oldest();
    const due = now - settings[days] * 86_400_000;
    out.push({ table: target.table, days: settings[days], behindSeconds: oldest ? Math.max(0, Math.round((due - oldest.getTime()) / 1000)) : 0 });
  }
  return out;
}
