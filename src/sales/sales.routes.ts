/** The sales-team endpoints (spec "Endpoints / Sales team"): thin routes over the sales services. */
import Joi from 'joi';
import type { ServerRoute } from '@hapi/hapi';
import { methodRoute } from '../http/method.js';
import { permission } from '../auth/policy/index.js';
import { getLeaderboard, getMyCustomers, getRepKpis, LEADERBOARD_METRICS, type LeaderboardMetric } from './rep-dashboard.service.js';
import {
  acceptCustomerResult,
  acceptSubrepResult,
  inviteSubrepResult,
  leaderboardResult,
  myCustomersResult,
  repKpisResult,
  teamCommissionResult,
} from './sales.docs.js';
import { teamCommissionSummary } from './team-commission.service.js';
import { acceptCustomerInvitation } from './customer-accounts.service.js';
import { acceptInvitation, inviteSubrep, type InviteInput } from './subrep-team.service.js';

const tags = ['sales team'];
/** Larger asks are clamped, not refused (like sync.orders' page_length). */
/** An invitation's redeem (sub-rep or customer login): the one-time token and the new password. */
const acceptArgs = Joi.object<{ token: string; password: string }>({ token: Joi.string().max(200).required(), password: Joi.string().max(200).required() });

export const MAX_LEADERBOARD = 100;
export const MAX_MY_CUSTOMERS = 500;

export const salesRoutes: ServerRoute[] = [
  methodRoute({
    name: 'svc.rep_dashboard.get_rep_kpis',
    docs: { result: repKpisResult },
    methods: ['GET', 'POST'],
    access: permission('Sales Dashboard', 'read'),
    tags,
    description:
      'Month-to-date sales, commission estimate, tier, level, streak, customer count and badges of the caller (a manager may name one of its team, an admin anyone: sales_person)',
    args: Joi.object<{ sales_person?: string }>({ sales_person: Joi.string().max(140) }),
    handler: ({ actor, args }) => getRepKpis(actor!, args),
  }),
  methodRoute({
    name: 'svc.rep_dashboard.get_leaderboard',
    docs: { result: leaderboardResult },
    methods: ['GET', 'POST'],
    access: permission('Sales Dashboard', 'read'),
    tags,
    description: `Sales persons ranked this month by metric (mtd_sales, commission_estimate, streak_days); limit default 10, at most ${MAX_LEADERBOARD}`,
    args: Joi.object<{ metric?: LeaderboardMetric; limit?: number }>({
      metric: Joi.string().valid(...LEADERBOARD_METRICS),
      limit: Joi.number().integer().min(1),
    }),
    handler: ({ actor, args }) => getLeaderboard(actor!, { metric: args.metric, limit: args.limit && Math.min(args.limit, MAX_LEADERBOARD) }),
  }),
  methodRoute({
    name: 'svc.rep_dashboard.get_my_customers',
    docs: { result: myCustomersResult },
    methods: ['GET', 'POST'],
    access: permission('Sales Dashboard', 'read'),
    tags,
    description: `Customers whose assigned_rep is the caller, newest first; limit default 20, at most ${MAX_MY_CUSTOMERS}`,
    args: Joi.object<{ limit?: number }>({ limit: Joi.number().integer().min(1) }),
    handler: ({ actor, args }) => getMyCustomers(actor!, { limit: args.limit && Math.min(args.limit, MAX_MY_CUSTOMERS) }),
  }),
  methodRoute({
    name: 'svc.team_commission.team_commission_summary',
    docs: { result: teamCommissionResult },
    methods: ['GET', 'POST'],
    access: permission('Sales Dashboard', 'team'),
    tags,
    description: 'Per-team rep and manager totals over the last period_days days (default 30, at most 366). Managers only',
    args: Joi.object<{ period_days?: number }>({ period_days: Joi.number().integer().min(1).max(366) }),
    handler: ({ actor, args }) => teamCommissionSummary(actor!, args),
  }),
  methodRoute({
    name: 'svc.subrep_team.invite_subrep',
    docs: { result: inviteSubrepResult },
    methods: ['POST'],
    access: permission('Sales Dashboard', 'invite'),
    tags,
    description:
      "Invites a sub-representative below the calling rep: creates the User and Sales Person and e-mails the invitation; subrep_pct is bounded by the rep's plan",
    args: Joi.object<InviteInput>({
      email: Joi.string().email({ tlds: false }).max(254).required(),
      full_name: Joi.string().trim().min(1).max(140).required(),
      subrep_pct: Joi.number().greater(0).max(100).required(),
    }),
    handler: ({ actor, args }) => inviteSubrep(actor!, args),
  }),
  methodRoute({
    name: 'svc.subrep_team.accept_invitation',
    docs: { result: acceptSubrepResult },
    methods: ['POST'],
    access: 'public',
    tags,
    description: "Sets an invited sub-rep's password with the invitation's one-time token",
    args: acceptArgs,
    handler: ({ args }) => acceptInvitation(args),
  }),
  methodRoute({
    name: 'svc.customer_accounts.accept_invitation',
    docs: { result: acceptCustomerResult },
    methods: ['POST'],
    access: 'public',
    tags,
    description: "Sets an invited customer login's password with the invitation's one-time token (svc customer create --email)",
    args: acceptArgs,
    handler: ({ args }) => acceptCustomerInvitation(args),
  }),
];
