/**
 * A sales tree for the sales-team tests: a manager, two reps and (through invite_subrep) a sub-rep,
 * each with a user, and customers attributed to them. Managers and reps come from the factories'
 * sales-org models (no service appoints them: the sales org is set up by operations); orders of a
 * chosen submit instant are inserted submitted (the set-based path the seed and bench use; the
 * triggers credit them exactly as a submit does), because no service submits in the past.
 */
import { execute } from '../../src/db/sequelize.js';
import type { Actor } from '../../src/auth/actor.js';
import { buildCustomer, buildSalesPerson, buildTerritory, buildUser, unique } from '../helpers/factories.js';

export interface Tree {
  manager: string;
  rep1: string;
  rep2: string;
  territory: string;
  actors: { manager: Actor; rep1: Actor; rep2: Actor };
  emails: { manager: string; rep1: string; rep2: string };
  customers: { rep1: string; rep2: string; manager: string };
}

let orderSerial = 0;

/** A team in its own territory (under United States): manager → rep1, rep2; one customer each. */
export async function buildTree(tag = unique('T')): Promise<Tree> {
  const territory = `Terr ${tag}`;
  const manager = `Mgr ${tag}`;
  const rep1 = `Rep1 ${tag}`;
  const rep2 = `Rep2 ${tag}`;
  await buildTerritory(territory);
  await buildSalesPerson(manager, { isManager: true, territory });
  for (const rep of [rep1, rep2]) await buildSalesPerson(rep, { parent: manager, territory });
  const m = await buildUser({ roles: ['Sales Manager'], sales_person: manager });
  const r1 = await buildUser({ roles: ['Sales Rep'], sales_person: rep1 });
  const r2 = await buildUser({ roles: ['Sales Rep'], sales_person: rep2 });
  const c1 = await buildCustomer({ territory, assigned_rep: rep1 });
  const c2 = await buildCustomer({ territory, assigned_rep: rep2 });
  const c3 = await buildCustomer({ territory, assigned_rep: manager });
  return {
    manager,
    rep1,
    rep2,
    territory,
    actors: { manager: m.actor, rep1: r1.actor, rep2: r2.actor },
    emails: { manager: m.email, rep1: r1.email, rep2: r2.email },
    customers: { rep1: c1.name, rep2: c2.name, manager: c3.name },
  };
}

/** A submitted order of `customer` for `amount`, submitted at `at` (an ISO instant); answers its name. */
export async function submittedOrder(customer: string, amount: number, at: string): Promise<string> {
  const name = `SO-T-${process.pid}-${++orderSerial}`;
  // written directly: no service submits in the past (see the header)
  await execute(
    `INSERT INTO sales_orders (name, customer, transaction_date, price_list, docstatus, status, grand_total, submitted_at, modified, created_at, updated_at)
     VALUES ($1, $2, ($4::timestamptz AT TIME ZONE 'America/New_York')::date, 'Standard Selling', 1, 'To Deliver and Bill', $3, $4, $4, $4, $4)`,
    [name, customer, amount, at],
  );
  return name;
}

/** Cancels a submitted order the way the cancel statement changes it (docstatus 1 → 2). */
export async function cancelled(order: string): Promise<void> {
  // written directly: the order was never placed through the service (see the header)
  await execute(`UPDATE sales_orders SET docstatus = 2, status = 'Cancelled', cancelled_at = now() WHERE name = $1 AND docstatus = 1`, [order]);
}

/** A draft order, then its submit at `at` (docstatus 0 → 1 through the update trigger). */
export async function draftThenSubmitted(customer: string, amount: number, at: string): Promise<string> {
  const name = `SO-T-${process.pid}-${++orderSerial}`;
  // written directly, then submitted in the past: no service does (see the header)
  await execute(
    `INSERT INTO sales_orders (name, customer, transaction_date, price_list, docstatus, status, grand_total, modified, created_at, updated_at)
     VALUES ($1, $2, CURRENT_DATE, 'Standard Selling', 0, 'Draft', $3, now(), now(), now())`,
    [name, customer, amount],
  );
  await execute(`UPDATE sales_orders SET docstatus = 1, status = 'To Deliver and Bill', submitted_at = $2 WHERE name = $1`, [name, at]);
  return name;
}
