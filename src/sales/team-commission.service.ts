/**
 * svc.team_commission.team_commission_summary (issue 14): per team (a manager and everyone below
 * it), each member's orders, sales and commission over the last `period_days` US Eastern days, and
 * the manager's totals (its own commission and its override). Managers see their own team (and a
 * sub-manager's team below it), admins every manager's. The tier of a period is the one its own
 * sales reach (for the month to date this is get_rep_kpis's figure).
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { salesPersonsVisibleTo } from '../auth/policy/sales.rules.js';
import { BusinessRuleError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';
import { addDays, easternDay } from './eastern.js';
import { childrenOf, commissionOf, descendantsOf, teamFiguresOf, type Figures, type Person } from './plans.js';
import type { Clock } from './rep-dashboard.service.js';
import { foldCredits, loadPeriod, managerNames } from './sales-sql.js';

const round2 = (n: number) => Math.round(n * 100) / 100;

interface MemberRow {
  sales_person: string;
  full_name: string;
  parent_sales_person: string | null;
  role: 'manager' | 'rep' | 'sub-rep';
  orders: number;
  sales: number;
  commission: number;
  tier: string | null;
}

interface TeamRow {
  manager: string;
  manager_name: string;
  reps: MemberRow[];
  team_orders: number;
  team_sales: number;
  rep_commission: number;
  manager_commission: number;
  manager_override: number;
  manager_total: number;
  total_commission: number;
}

/** Per-team rep and manager totals over the last `period_days` days (today included). */
export async function teamCommissionSummary(
  actor: Actor,
  args: { period_days?: number } = {},
  clock: Clock = {},
): Promise<{ period_days: number; from: string; to: string; currency: 'USD'; teams: TeamRow[] }> {
  authorize(actor, 'team', 'Sales Dashboard');
  const days = args.period_days ?? 30;
  const to = easternDay(clock.now ?? new Date());
  const from = addDays(to, -(days - 1));
  const visible = salesPersonsVisibleTo(actor);
  let roots: string[];
  if (visible === null) roots = await managerNames();
  else if (actor.salesPerson) roots = [actor.salesPerson];
  else throw new BusinessRuleError('No Sales Person is linked to your account');
  await foldCredits(true);
  const rows = await loadPeriod(roots, from, to);
  const people = new Map<string, Person & Figures>(rows.map((r) => [r.name, r]));
  const children = childrenOf(rows);
  const figures = (n: string): Figures => people.get(n) ?? { orders: 0, sales: 0 };
  const settings = runtime().config.sales;
  const teams = roots
    .map((root) => people.get(root))
    .filter((m): m is Person & Figures => m !== undefined)
    .map((m) => teamOf(m, people, children, figures, settings));
  return { period_days: days, from, to, currency: 'USD', teams };
}

const inviterPlan = (p: Person, people: Map<string, Person>) => (p.parent ? people.get(p.parent)?.plan : undefined);

function teamOf(
  manager: Person & Figures,
  people: Map<string, Person & Figures>,
  children: Map<string, Person[]>,
  figures: (n: string) => Figures,
  settings: ReturnType<typeof runtime>['config']['sales'],
): TeamRow {
  const members = descendantsOf(manager.name, children).sort((a, b) => (a.name < b.name ? -1 : 1));
  const reps: MemberRow[] = members.map((p) => {
    const c = commissionOf(settings, p, inviterPlan(p, people), teamFiguresOf(p, figures, children));
    const f = figures(p.name);
    return {
      sales_person: p.name,
      full_name: p.full_name,
      parent_sales_person: p.parent,
      role: p.is_manager ? 'manager' : p.subrep_pct !== null ? 'sub-rep' : 'rep',
      orders: f.orders,
      sales: round2(f.sales),
      commission: c.total,
      tier: c.tier,
    };
  });
  const own = commissionOf(settings, manager, inviterPlan(manager, people), teamFiguresOf(manager, figures, children));
  const teamSales = manager.sales + reps.reduce((s, r) => s + r.sales, 0);
  const repCommission = reps.reduce((s, r) => s + r.commission, 0);
  return {
    manager: manager.name,
    manager_name: manager.full_name,
    reps,
    team_orders: manager.orders + reps.reduce((s, r) => s + r.orders, 0),
    team_sales: round2(teamSales),
    rep_commission: round2(repCommission),
    manager_commission: round2(own.own + own.subrep_share),
    manager_override: own.manager_override,
    manager_total: own.total,
    total_commission: round2(repCommission + own.total),
  };
}
