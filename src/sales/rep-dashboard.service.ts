/**
 * svc.rep_dashboard (issue 14): a rep's KPIs, the leaderboard and the rep's customers, read from the
 * aggregates the order triggers keep (never a scan of the orders). Reps see their own figures,
 * managers their team's, admins everyone's (src/auth/policy/sales.rules.ts).
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { canViewSalesPerson } from '../auth/policy/sales.rules.js';
import type { CommissionPlan, SalesSettings } from '../config/index.js';
import { customersAssignedTo } from '../org/org.service.js';
import { BusinessRuleError, NotFoundError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';
import { currentStreak, easternDay, monthOf } from './eastern.js';
import { badgesOf, commissionOf, levelOf, planOf, tierOf, type Badge } from './plans.js';
import { BOARD_METRICS, loadBoard, loadKpiFacts, type BoardMetric, type KpiFacts } from './sales-sql.js';

export interface Clock {
  /** the instant "now" (tests move it; the service uses the real clock) */
  now?: Date;
}

/** The caller's sales person, or the one named when the caller may see it (a hidden one is "not found"). */
export function targetSalesPerson(actor: Actor, named?: string): string {
  const target = named ?? actor.salesPerson ?? undefined;
  if (!target) throw new BusinessRuleError('No Sales Person is linked to your account: name one with sales_person');
  if (!canViewSalesPerson(actor, target)) throw new NotFoundError(`Sales Person ${target} not found`);
  return target;
}

export interface RepKpis {
  sales_person: string;
  full_name: string;
  role: 'manager' | 'rep' | 'sub-rep';
  currency: 'USD';
  month: string;
  as_of: string;
  mtd_sales: number;
  mtd_orders: number;
  today_sales: number;
  commission_estimate: number;
  commission: { own: number; subrep_share: number; manager_override: number; rate_pct: number; plan: string };
  tier: string | null;
  next_tier: { tier: string; from_mtd: number; to_go: number } | null;
  level: number;
  level_name: string;
  next_level: { level: number; name: string; from_sales: number; to_go: number } | null;
  lifetime_sales: number;
  streak_days: number;
  customer_count: number;
  sub_reps: number;
  badges: Badge[];
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Month-to-date sales, commission estimate, tier, level, streak, customer count and badges of one sales person. */
export async function getRepKpis(actor: Actor, args: { sales_person?: string } = {}, clock: Clock = {}): Promise<RepKpis> {
  authorize(actor, 'read', 'Sales Dashboard');
  const name = targetSalesPerson(actor, args.sales_person);
  const settings = runtime().config.sales;
  const today = easternDay(clock.now ?? new Date());
  const month = monthOf(today);
  const me = await loadKpiFacts(name, month, today);
  if (!me) throw new NotFoundError(`Sales Person ${name} not found`);
  const { key, plan } = planOf(settings, me.plan);
  const { tier } = tierOf(plan, me.sales);
  const tiers = [...plan.tiers].sort((a, b) => a.fromMtd - b.fromMtd);
  const isSubrep = me.subrep_pct !== null;
  const streak = currentStreak(me.streak?.streak_days ?? 0, me.streak?.last_day ?? null, today);
  return {
    sales_person: name,
    full_name: me.full_name,
    role: me.is_manager ? 'manager' : isSubrep ? 'sub-rep' : 'rep',
    currency: 'USD',
    month: month.slice(0, 7),
    as_of: today,
    mtd_sales: round2(me.sales),
    mtd_orders: me.orders,
    today_sales: round2(me.today?.sales ?? 0),
    ...commissionFigures(settings, me, key),
    ...progressFigures(settings, plan, me, isSubrep),
    lifetime_sales: round2(me.lifetime.sales),
    streak_days: streak,
    customer_count: me.customer_count,
    sub_reps: me.sub_reps,
    badges: badgesOf({
      lifetime_orders: me.lifetime.orders,
      mtd_orders: me.orders,
      streak_days: streak,
      tier_index: isSubrep ? 0 : tiers.indexOf(tier),
      tier_count: tiers.length,
      sub_reps: me.sub_reps,
      customer_count: me.customer_count,
    }),
  };
}

/** The stored commission the leaderboard ranks by, and its parts as commissionOf explains them. */
function commissionFigures(settings: SalesSettings, me: KpiFacts, plan: string): Pick<RepKpis, 'commission_estimate' | 'commission'> {
  const commission = commissionOf(settings, me, me.inviter_plan, me);
  return {
    // the stored figure the leaderboard ranks by (sales_commission); commissionOf explains it
    commission_estimate: me.stored_commission,
    commission: {
      own: commission.own,
      subrep_share: commission.subrep_share,
      manager_override: commission.manager_override,
      rate_pct: commission.rate_pct,
      plan,
    },
  };
}

/** The month's tier in the plan (none for a sub-rep) and the lifetime level, each with what is left to the next. */
function progressFigures(
  settings: SalesSettings,
  plan: CommissionPlan,
  me: KpiFacts,
  isSubrep: boolean,
): Pick<RepKpis, 'tier' | 'next_tier' | 'level' | 'level_name' | 'next_level'> {
  const { tier, next } = tierOf(plan, me.sales);
  const level = levelOf(settings, me.lifetime.sales);
  return {
    tier: isSubrep ? null : tier.name,
    next_tier: isSubrep || !next ? null : { tier: next.name, from_mtd: next.fromMtd, to_go: round2(next.fromMtd - me.sales) },
    level: level.level,
    level_name: level.name,
    next_level: level.next
      ? { level: level.next.level, name: level.next.name, from_sales: level.next.fromSales, to_go: round2(level.next.fromSales - me.lifetime.sales) }
      : null,
  };
}

export const LEADERBOARD_METRICS = BOARD_METRICS;
export type LeaderboardMetric = BoardMetric;

export interface LeaderboardEntry {
  rank: number;
  sales_person: string;
  full_name: string;
  value: number;
  is_me: boolean;
}

/**
 * Every enabled sales person ranked by the metric this month (ties share a rank, then by name); the
 * caller's own entry is added when it is below the limit. A leaderboard names the others and their
 * metric only: never their customers or orders.
 */
export async function getLeaderboard(
  actor: Actor,
  args: { metric?: LeaderboardMetric; limit?: number } = {},
  clock: Clock = {},
): Promise<{ metric: LeaderboardMetric; month: string; as_of: string; entries: LeaderboardEntry[]; me: LeaderboardEntry | null }> {
  authorize(actor, 'read', 'Sales Dashboard');
  const metric = args.metric ?? 'mtd_sales';
  const today = easternDay(clock.now ?? new Date());
  const month = monthOf(today);
  const me = actor.salesPerson ?? null;
  const rows = await loadBoard(metric, { month, limit: args.limit ?? 10, me, today });
  const entries = rows.map((r) => ({ rank: r.rank, sales_person: r.sales_person, full_name: r.full_name, value: r.value, is_me: r.sales_person === me }));
  const mine = entries.find((e) => e.is_me) ?? null;
  return { metric, month: month.slice(0, 7), as_of: today, entries: entries.slice(0, args.limit ?? 10), me: mine };
}

/** Customers whose assigned rep is the caller (newest first). */
export async function getMyCustomers(actor: Actor, args: { limit?: number } = {}): Promise<Record<string, unknown>[]> {
  authorize(actor, 'read', 'Sales Dashboard');
  if (!actor.salesPerson) throw new BusinessRuleError('No Sales Person is linked to your account');
  return customersAssignedTo(actor.salesPerson, args.limit ?? 20);
}
