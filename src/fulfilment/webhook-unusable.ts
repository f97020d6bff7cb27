/**
 * Verified partner deliveries the service cannot use (issue 26): acknowledged, never refused for
 * their shape (a partner retries refused deliveries and, like Shopify, eventually removes the
 * subscription), and counted per partner and topic in partner_webhook_drops (reason
 * `unusable:<topic>`) with the last one's problem and shape for `svc check`. The shape names keys and
 * value types only: partner bodies carry patients' and buyers' data, which is never kept here.
 */
import { execute, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { PartnerWebhookDrop } from './partner-webhook-drop.model.js';
import type { PartnerKey } from './partners.js';

export const UNUSABLE_PREFIX = 'unusable:';
const SHAPE_MAX = 600;

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return v.length ? `[${typeOf(v[0])}]` : '[]';
  return typeof v;
}

/** A body's shape: its keys with their value types, one level into objects (no values). */
export function bodyShape(raw: Buffer): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    return `not JSON (${raw.length} bytes)`;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return `JSON ${typeOf(parsed)}`;
  const parts = Object.entries(parsed as Record<string, unknown>).map(([k, v]) =>
    v && typeof v === 'object' && !Array.isArray(v) ? `${k}: {${Object.keys(v).join(', ')}}` : `${k}: ${typeOf(v)}`,
  );
  const text = `{${parts.join(', ')}}`;
  return text.length > SHAPE_MAX ? `${text.slice(0, SHAPE_MAX - 1)}…` : text;
}

const upsertSql = once(() =>
  sqlFor({ d: PartnerWebhookDrop })(
    `INSERT INTO {@d} ({d:partner}, {d:reason}, {d:count}, {d:lastAt}, {d:lastProblem}, {d:lastExample}) VALUES ($1, $2, 1, now(), $3, $4)
     ON CONFLICT ({d:partner}, {d:reason}) DO UPDATE SET {d:count} = {@d}.{d:count} + 1, {d:lastAt} = EXCLUDED.{d:lastAt},
       {d:lastProblem} = EXCLUDED.{d:lastProblem}, {d:lastExample} = EXCLUDED.{d:lastExample}`,
  ),
);

/** Counts one unusable delivery of `partner` under its topic (or `unknown`), keeping its problem and shape. */
export async function recordUnusableWebhook(
  partner: PartnerKey,
  delivery: { topic: string | null; problem: string; rawBody: Buffer },
  opts: { transaction?: Tx } = {},
): Promise<void> {
  const topic = (delivery.topic ?? 'unknown').slice(0, 100);
  await execute(upsertSql(), [partner, `${UNUSABLE_PREFIX}${topic}`, delivery.problem.slice(0, 300), bodyShape(delivery.rawBody)], opts);
}
