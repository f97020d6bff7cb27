/** The documented results of the sales-team methods (spec "Sales team"); read when the OpenAPI document is built. */
import Joi from 'joi';
import { messageOf } from '../shared/result-docs.js';
import { LEADERBOARD_METRICS } from './rep-dashboard.service.js';

const role = Joi.string().valid('manager', 'rep', 'sub-rep').label('SalesRole');
const day = () => Joi.string().description('YYYY-MM-DD (US Eastern)');

export const repKpisResult = messageOf(
  Joi.object({
    sales_person: Joi.string(),
    full_name: Joi.string(),
    role,
    currency: Joi.string().valid('USD'),
    month: Joi.string().description('The month (YYYY-MM)'),
    as_of: day(),
    mtd_sales: Joi.number().description('Month-to-date sales'),
    mtd_orders: Joi.number().integer(),
    today_sales: Joi.number(),
    commission_estimate: Joi.number(),
    commission: Joi.object({
      own: Joi.number(),
      subrep_share: Joi.number(),
      manager_override: Joi.number(),
      rate_pct: Joi.number(),
      plan: Joi.string(),
    })
      .description('How the estimate is made up')
      .label('CommissionBreakdown'),
    tier: Joi.string().allow(null),
    next_tier: Joi.object({ tier: Joi.string(), from_mtd: Joi.number(), to_go: Joi.number() }).allow(null).label('NextTier'),
    level: Joi.number().integer(),
    level_name: Joi.string(),
    next_level: Joi.object({ level: Joi.number().integer(), name: Joi.string(), from_sales: Joi.number(), to_go: Joi.number() }).allow(null).label('NextLevel'),
    lifetime_sales: Joi.number(),
    streak_days: Joi.number().integer(),
    customer_count: Joi.number().integer(),
    sub_reps: Joi.number().integer(),
    badges: Joi.array()
      .items(Joi.object({ badge: Joi.string(), title: Joi.string(), description: Joi.string() }).label('Badge'))
      .description('Badges earned')
      .label('Badges'),
  }).label('RepKpis'),
  'RepKpisResult',
);

const entry = Joi.object({
  rank: Joi.number().integer().description('Ties share a rank'),
  sales_person: Joi.string(),
  full_name: Joi.string(),
  value: Joi.number().description('The metric'),
  is_me: Joi.boolean(),
}).label('LeaderboardEntry');

export const leaderboardResult = messageOf(
  Joi.object({
    metric: Joi.string()
      .valid(...LEADERBOARD_METRICS)
      .label('LeaderboardMetric'),
    month: Joi.string().description('YYYY-MM'),
    as_of: day(),
    entries: Joi.array().items(entry).label('LeaderboardEntries'),
    me: entry
      .allow(null)
      .description("The caller's own entry (also when below the limit); null for a caller without a Sales Person")
      .label('OwnLeaderboardEntry'),
  }).label('Leaderboard'),
  'LeaderboardResult',
);

export const myCustomersResult = messageOf(
  Joi.array()
    .items(
      Joi.object({
        name: Joi.string().description('Customer id'),
        customer_name: Joi.string(),
        customer_type: Joi.string(),
        territory: Joi.string().allow(null),
        price_list: Joi.string().allow(null),
        assigned_rep: Joi.string().allow(null),
        email: Joi.string().allow(null),
        phone: Joi.string().allow(null),
        disabled: Joi.number().integer().valid(0, 1),
        creation: Joi.string().description('When the customer was created'),
      }).label('AssignedCustomer'),
    )
    .label('AssignedCustomers'),
  'MyCustomersResult',
);

const member = Joi.object({
  sales_person: Joi.string(),
  full_name: Joi.string(),
  parent_sales_person: Joi.string().allow(null),
  role,
  orders: Joi.number().integer(),
  sales: Joi.number(),
  commission: Joi.number(),
  tier: Joi.string().allow(null),
}).label('TeamMember');

export const teamCommissionResult = messageOf(
  Joi.object({
    period_days: Joi.number().integer(),
    from: day(),
    to: day(),
    currency: Joi.string().valid('USD'),
    teams: Joi.array()
      .items(
        Joi.object({
          manager: Joi.string(),
          manager_name: Joi.string(),
          reps: Joi.array().items(member).label('TeamMembers'),
          team_orders: Joi.number().integer(),
          team_sales: Joi.number(),
          rep_commission: Joi.number(),
          manager_commission: Joi.number(),
          manager_override: Joi.number(),
          manager_total: Joi.number(),
          total_commission: Joi.number(),
        }).label('TeamCommission'),
      )
      .label('TeamCommissions'),
  }).label('TeamCommissionSummary'),
  'TeamCommissionSummaryResult',
);

export const inviteSubrepResult = messageOf(
  Joi.object({
    email: Joi.string(),
    full_name: Joi.string(),
    sales_person: Joi.string().description('The new Sales Person'),
    parent_sales_person: Joi.string(),
    subrep_pct: Joi.number(),
    territory: Joi.string().allow(null),
    invitation_expires_at: Joi.string(),
  }).label('SubrepInvitation'),
  'InviteSubrepResult',
);

export const acceptSubrepResult = messageOf(
  Joi.object({ email: Joi.string(), sales_person: Joi.string() }).label('AcceptedSubrep'),
  'AcceptSubrepInvitationResult',
);
export const acceptCustomerResult = messageOf(
  Joi.object({ email: Joi.string(), customer: Joi.string() }).label('AcceptedCustomerLogin'),
  'AcceptCustomerInvitationResult',
);
