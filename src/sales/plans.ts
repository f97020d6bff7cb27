/**
 * Commission plans, tiers, levels and badges (issue 14; plans and levels in config/ `sales`, rules in
 * docs/decisions.md "Sales team (issue 14)"). Pure functions over a team's figures: nothing here
 * reads the database, so KPIs, the leaderboard and the team summary compute alike.
 */
import type { CommissionPlan, SalesSettings } from '../config/index.js';

export interface Person {
  name: string;
  full_name: string;
  parent: string | null;
  is_manager: boolean;
  /** set on a sub-rep: its fixed slice (%) of the base commission of its own sales */
  subrep_pct: number | null;
  plan: string | null;
  territory?: string | null;
}

export interface Figures {
  orders: number;
  sales: number;
}

export interface Commission {
  /** on the person's own sales: the tier's rate (a sub-rep: its slice of the base commission) */
  own: number;
  /** a rep's part of its sub-reps' base commission: (100 − subrep_pct) % of it */
  subrep_share: number;
  /** a manager's override on the sales of everyone below it */
  manager_override: number;
  total: number;
  tier: string | null;
  rate_pct: number;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

export function planOf(settings: SalesSettings, name: string | null | undefined): { key: string; plan: CommissionPlan } {
  const key = name && settings.plans[name] ? name : settings.defaultPlan;
  return { key, plan: settings.plans[key] };
}

/** The tier reached by `sales` (the highest whose threshold it meets) and the next one. */
export function tierOf(plan: CommissionPlan, sales: number): { tier: CommissionPlan['tiers'][number]; next: CommissionPlan['tiers'][number] | null } {
  const tiers = [...plan.tiers].sort((a, b) => a.fromMtd - b.fromMtd);
  let at = 0;
  tiers.forEach((t, k) => {
    if (sales >= t.fromMtd) at = k;
  });
  return { tier: tiers[at], next: tiers[at + 1] ?? null };
}

/** Level by lifetime credited sales. */
export function levelOf(
  settings: SalesSettings,
  lifetime: number,
): { level: number; name: string; next: { level: number; name: string; fromSales: number } | null } {
  const levels = [...settings.levels].sort((a, b) => a.fromSales - b.fromSales);
  let at = 0;
  levels.forEach((l, k) => {
    if (lifetime >= l.fromSales) at = k;
  });
  return { level: levels[at].level, name: levels[at].name, next: levels[at + 1] ?? null };
}

/** Children of each person (by parent). */
export function childrenOf(people: Iterable<Person>): Map<string, Person[]> {
  const children = new Map<string, Person[]>();
  for (const p of people) {
    if (!p.parent) continue;
    if (!children.has(p.parent)) children.set(p.parent, []);
    children.get(p.parent)!.push(p);
  }
  return children;
}

/** Everyone below `name` in the tree (not itself). */
export function descendantsOf(name: string, children: Map<string, Person[]>): Person[] {
  const out: Person[] = [];
  const stack = [...(children.get(name) ?? [])];
  const seen = new Set<string>([name]);
  while (stack.length) {
    const p = stack.pop()!;
    if (seen.has(p.name)) continue; // a cycle in the data never loops
    seen.add(p.name);
    out.push(p);
    stack.push(...(children.get(p.name) ?? []));
  }
  return out;
}

/** A person's figures with the sums over its team that its commission needs (stored per month, or summed from the tree). */
export interface TeamFigures {
  sales: number;
  /** the own sales of everyone below the person */
  team_sales: number;
  /** Σ over its direct sub-reps of their sales × (100 − subrep_pct) */
  subrep_weighted: number;
}

/** The team sums of `person` from everyone's figures and the tree (the team summary's arbitrary periods). */
export function teamFiguresOf(person: Person, figures: (name: string) => Figures, children: Map<string, Person[]>): TeamFigures {
  let weighted = 0;
  for (const sub of children.get(person.name) ?? []) if (sub.subrep_pct !== null) weighted += figures(sub.name).sales * (100 - sub.subrep_pct);
  return {
    sales: figures(person.name).sales,
    team_sales: descendantsOf(person.name, children).reduce((s, p) => s + figures(p.name).sales, 0),
    subrep_weighted: weighted,
  };
}

/**
 * A person's commission on a period's figures:
 * - a rep or manager earns the rate of the tier its own sales reach, on all of its own sales;
 * - a sub-rep earns `subrep_pct` % of the base commission (its inviter's plan's base rate) of its own sales, no tier;
 * - the inviting rep earns the rest of that base commission, (100 − subrep_pct) %;
 * - a manager earns its plan's override % of the sales of everyone below it.
 * `inviterPlan` is the plan of the person's parent (a sub-rep's base rate is its inviter's plan's).
 * The stored commission (KPIs, the leaderboard) is the same rule in SQL, the function sales_commission
 * generated from the plans (sales-sql.ts commissionFunctionSql); test/sales/commission-stored.cases.ts holds the two equal.
 */
export function commissionOf(settings: SalesSettings, person: Person, inviterPlan: string | null | undefined, f: TeamFigures): Commission {
  const own = f.sales;
  const { plan } = planOf(settings, person.plan);
  let ownCommission: number;
  let tier: string | null = null;
  let ratePct: number;
  if (person.subrep_pct !== null) {
    const base = planOf(settings, inviterPlan ?? person.plan).plan.baseRatePct;
    ratePct = (base * person.subrep_pct) / 100;
    ownCommission = (own * ratePct) / 100;
  } else {
    const t = tierOf(plan, own).tier;
    tier = t.name;
    ratePct = t.ratePct;
    ownCommission = (own * t.ratePct) / 100;
  }
  const subrepShare = (f.subrep_weighted * plan.baseRatePct) / 10000;
  const override = person.is_manager ? (f.team_sales * plan.managerOverridePct) / 100 : 0;
  return {
    own: round2(ownCommission),
    subrep_share: round2(subrepShare),
    manager_override: round2(override),
    total: round2(ownCommission + subrepShare + override),
    tier,
    rate_pct: ratePct,
  };
}

export interface Badge {
  badge: string;
  title: string;
  description: string;
}

export interface BadgeFacts {
  lifetime_orders: number;
  mtd_orders: number;
  streak_days: number;
  tier_index: number;
  tier_count: number;
  sub_reps: number;
  customer_count: number;
}

/** The badge rules (docs/decisions.md "Sales team (issue 14)"); earned badges in this order. */
export const BADGE_RULES: { badge: string; title: string; description: string; earned(f: BadgeFacts): boolean }[] = [
  { badge: 'first_sale', title: 'First Sale', description: 'A first submitted order', earned: (f) => f.lifetime_orders >= 1 },
  { badge: 'hot_streak', title: 'Hot Streak', description: 'Sales on 5 business days in a row', earned: (f) => f.streak_days >= 5 },
  { badge: 'on_fire', title: 'On Fire', description: 'Sales on 10 business days in a row', earned: (f) => f.streak_days >= 10 },
  { badge: 'ten_orders', title: 'Ten in a Month', description: '10 orders this month', earned: (f) => f.mtd_orders >= 10 },
  { badge: 'tier_climber', title: 'Tier Climber', description: 'Above the first tier this month', earned: (f) => f.tier_index >= 1 },
  {
    badge: 'top_tier',
    title: 'Top Tier',
    description: "The plan's highest tier this month",
    earned: (f) => f.tier_count > 1 && f.tier_index === f.tier_count - 1,
  },
  { badge: 'team_builder', title: 'Team Builder', description: 'Invited a sub-rep', earned: (f) => f.sub_reps >= 1 },
  { badge: 'book_of_business', title: 'Book of Business', description: '10 customers assigned', earned: (f) => f.customer_count >= 10 },
];

export function badgesOf(facts: BadgeFacts): Badge[] {
  return BADGE_RULES.filter((r) => r.earned(facts)).map(({ badge, title, description }) => ({ badge, title, description }));
}
