/**
 * Forward-only partner statuses (spec "Partner-driven order statuses"; issue 12: "a late RECEIVED
 * never undoes Shipped"). A status applies only over one of lower rank in the connector's order;
 * nothing moves after a terminal status; an equal rank only adds tracking.
 */
import { SHIPPED_STAGES, type Stage } from '../vendor-api/stages.js';
import type { PartnerStatuses } from './connector.js';

export type Move = 'advance' | 'same' | 'back' | 'after_terminal' | 'unknown';

/** How `next` relates to `current` for a partner. */
export function moveOf(statuses: PartnerStatuses, current: string | null, next: string): Move {
  if (!(next in statuses.rank)) return 'unknown';
  if (current === null || !(current in statuses.rank)) return 'advance';
  if (statuses.terminal.includes(current)) return current === next ? 'same' : 'after_terminal';
  const [a, b] = [statuses.rank[current], statuses.rank[next]];
  return b > a ? 'advance' : b === a ? 'same' : 'back';
}

/** The fulfilment stage of a status, and whether the goods have left / arrived. */
export function stageOf(statuses: PartnerStatuses, status: string): { stage: Stage; shipped: boolean; delivered: boolean } {
  const stage = statuses.stage[status] ?? 'Pending';
  return { stage, shipped: SHIPPED_STAGES.includes(stage), delivered: stage === 'Delivered' };
}

/** The status a partner order ends in when it cannot be sent (the partner's Failed, where it has one). */
export function failedStatusOf(statuses: PartnerStatuses): string | null {
  return 'Failed' in statuses.rank ? 'Failed' : null;
}
