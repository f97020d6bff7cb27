/**
 * The retention of every table that grows with traffic (issue 25 §7): which target keeps its rows
 * how many days (src/config), one batch at a time, and how far each is behind.
 */
import type { RetentionSettings } from '../config/index.js';
import type { RetentionTarget } from '../db/retention.js';
import { auditRetention } from '../audit/retention.js';
import { partnerCallsRetention, partnerEventsRetention } from '../fulfilment/retention.js';
import { passwordResetsRetention } from '../integrations/retention.js';
import { outboxRetention } from '../shared/outbox-retention.js';
import { vendorApiLogRetention } from '../vendor-api/retention.js';

/** Each target with the setting that holds its days. */
export const RETENTION: readonly { target: RetentionTarget; days: keyof Omit<RetentionSettings, 'batchSize'> }[] = [
  { target: outboxRetention, days: 'outboxDays' },
  { target: partnerCallsRetention, days: 'partnerCallsDays' },
  { target: partnerEventsRetention, days: 'partnerEventsDays' },
  { target: vendorApiLogRetention, days: 'vendorApiLogDays' },
  { target: passwordResetsRetention, days: 'passwordResetsDays' },
  { target: auditRetention, days: 'auditDays' },
];

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
