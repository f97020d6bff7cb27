/**
 * The demo sales team (issue 14): a manager, two reps and a sub-rep in the Central territory, their
 * clinics, and a month of delivered demo orders (marketplace stock, nothing reserved, no vendor
 * lines, no side effects), dated back from the day of seeding, so a rep who signs in sees month-to-date
 * sales, a commission estimate, a live streak, badges and a leaderboard at once. The order triggers
 * credit each inserted submitted order to the customer's rep; the seed folds the credits into
 * sales_rep_days, _months and _streaks.
 */
import type { CreationAttributes } from 'sequelize';
import type { Tx } from '../src/db/sequelize.js';
import { Address } from '../src/org/address.model.js';
import { Customer } from '../src/org/customer.model.js';
import { SalesPerson } from '../src/org/sales-person.model.js';
import { Territory } from '../src/org/territory.model.js';
import { SalesOrder } from '../src/orders/sales-order.model.js';
import { SalesOrderItem } from '../src/orders/sales-order-item.model.js';
import { User } from '../src/users/user.model.js';
import { hashPassword } from '../src/shared/crypto.js';
import { addDays, easternDay } from '../src/sales/eastern.js';
import { foldCredits } from '../src/sales/sales-sql.js';
import { DEMO_PASSWORD } from './foundation.seed.js';

export const SALES_DEMO_USERS = [
  {
    email: 'sales.manager@demo.svc.local',
    full_name: 'Sofia Sterling',
    sales_person: 'Sofia Sterling',
    roles: ['Sales Manager' as const],
    what: 'sales manager (Central): team commission summary',
  },
  {
    email: 'sales.rep@demo.svc.local',
    full_name: 'Riley Rivera',
    sales_person: 'Riley Rivera',
    roles: ['Sales Rep' as const],
    what: 'sales rep: KPIs, streak, badges, leaderboard',
  },
  { email: 'sales.rep2@demo.svc.local', full_name: 'Casey Chen', sales_person: 'Casey Chen', roles: ['Sales Rep' as const], what: 'sales rep (Central)' },
  {
    email: 'subrep@demo.svc.local',
    full_name: 'Sam Sub',
    sales_person: 'Sam Sub',
    roles: ['Sales Rep' as const],
    what: 'sub-rep of Riley Rivera (30% of the base commission)',
  },
];

const CUSTOMERS = [
  { name: 'CUST-0101', customerName: 'Prairie Pediatrics', rep: 'Riley Rivera', city: 'Kansas City', state: 'MO' },
  { name: 'CUST-0102', customerName: 'Lakeside Dental Group', rep: 'Riley Rivera', city: 'Chicago', state: 'IL' },
  { name: 'CUST-0103', customerName: 'Heartland Urgent Care', rep: 'Casey Chen', city: 'Omaha', state: 'NE' },
  { name: 'CUST-0104', customerName: 'Riverbend Family Practice', rep: 'Casey Chen', city: 'St. Louis', state: 'MO' },
  { name: 'CUST-0105', customerName: 'Maple Street Clinic', rep: 'Sam Sub', city: 'Des Moines', state: 'IA' },
  { name: 'CUST-0106', customerName: 'Central Wellness Partners', rep: 'Sofia Sterling', city: 'Minneapolis', state: 'MN' },
];

const ITEMS = [
  { code: 'DEMO-BP-CUFF', name: 'Blood Pressure Cuff, Adult', uom: 'Nos', rate: 39 },
  { code: 'DEMO-N95', name: 'N95 Respirator Mask (20)', uom: 'Box', rate: 25 },
  { code: 'DEMO-ALC-PREP', name: 'Alcohol Prep Pads (200)', uom: 'Box', rate: 5 },
];

/** Who orders on the k-th day back (0 = today): Riley every business day, Casey most, Sam the last eight days, Sofia twice a week. */
function buyersOf(k: number, weekday: number): string[] {
  if (weekday === 0 || weekday === 6) return k % 7 === 0 ? ['CUST-0101'] : [];
  const out = [k % 2 === 0 ? 'CUST-0101' : 'CUST-0102'];
  if (k % 5 === 0) out.push('CUST-0102');
  if (k % 3 !== 0) out.push(k % 2 === 0 ? 'CUST-0103' : 'CUST-0104');
  if (k <= 8) out.push('CUST-0105');
  if (weekday === 2 || weekday === 4) out.push('CUST-0106');
  return out;
}

let hashed: string | undefined;

/** The Central team, its clinics and a month of delivered orders (idempotent: a second run changes nothing). */
export async function seedSales(transaction: Tx): Promise<void> {
  const once = { transaction, ignoreDuplicates: true };
  await Territory.bulkCreate([{ name: 'Central', parentTerritory: 'United States' }], once);
  await SalesPerson.bulkCreate([{ name: 'Sofia Sterling', fullName: 'Sofia Sterling', isManager: true, territory: 'Central', commissionPlan: 'senior' }], once);
  await SalesPerson.bulkCreate(
    [
      { name: 'Riley Rivera', fullName: 'Riley Rivera', parentSalesPerson: 'Sofia Sterling', territory: 'Central', commissionPlan: 'standard' },
      { name: 'Casey Chen', fullName: 'Casey Chen', parentSalesPerson: 'Sofia Sterling', territory: 'Central', commissionPlan: 'standard' },
    ],
    once,
  );
  await SalesPerson.bulkCreate(
    [{ name: 'Sam Sub', fullName: 'Sam Sub', parentSalesPerson: 'Riley Rivera', territory: 'Central', subrepPct: 30, commissionPlan: 'standard' }],
    once,
  );
  await Customer.bulkCreate(
    CUSTOMERS.map((c) => ({ name: c.name, customerName: c.customerName, territory: 'Central', priceList: 'Standard Selling', assignedRep: c.rep })),
    once,
  );
  await Address.bulkCreate(
    CUSTOMERS.map((c) => ({
      name: `${c.name}-Shipping`,
      customer: c.name,
      addressTitle: c.customerName,
      addressLine1: `${100 + Number(c.name.slice(-2))} Main Street`,
      city: c.city,
      state: c.state,
      country: 'United States',
      isShippingAddress: true,
      isPrimaryAddress: true,
    })),
    once,
  );
  hashed ??= await hashPassword(DEMO_PASSWORD);
  await User.bulkCreate(
    SALES_DEMO_USERS.map((u) => ({ email: u.email, fullName: u.full_name, passwordHash: hashed!, roles: [...u.roles], salesPerson: u.sales_person })),
    once,
  );
  if (await SalesOrder.findByPk('SAL-ORD-DEMO-00001', { attributes: ['name'], transaction })) return;
  await seedDemoOrders(transaction);
}

async function seedDemoOrders(transaction: Tx): Promise<void> {
  const today = easternDay(new Date());
  const orders: CreationAttributes<SalesOrder>[] = [];
  const lines: CreationAttributes<SalesOrderItem>[] = [];
  let n = 0;
  for (let k = 34; k >= 0; k--) {
    const day = addDays(today, -k);
    const weekday = new Date(`${day}T12:00:00Z`).getUTCDay();
    // submitted at 15:00 UTC (10:00 or 11:00 in New York: the same Eastern day); today's a minute ago
    const at = k === 0 ? new Date(Date.now() - 60_000) : new Date(`${day}T15:00:00Z`);
    for (const customer of buyersOf(k, weekday)) {
      const name = `SAL-ORD-DEMO-${String(++n).padStart(5, '0')}`;
      const picked = [ITEMS[n % 3], ITEMS[(n + 1) % 3]];
      const qtys = [4 + ((n * 7) % 9), 2 + ((n * 5) % 6)];
      const amounts = picked.map((it, i) => it.rate * qtys[i]);
      const total = amounts.reduce((s, a) => s + a, 0);
      orders.push({
        name,
        customer,
        territory: 'Central',
        transactionDate: day,
        deliveryDate: addDays(day, 3),
        priceList: 'Standard Selling',
        shippingAddressName: `${customer}-Shipping`,
        docstatus: 1,
        status: k > 3 ? 'Completed' : 'To Deliver and Bill',
        grandTotal: total,
        totalQty: qtys[0] + qtys[1],
        submittedAt: at,
        deliveredAt: k > 3 ? new Date(at.getTime() + 3 * 86_400_000) : null,
        modified: at,
      });
      picked.forEach((it, i) =>
        lines.push({
          parent: name,
          idx: i + 1,
          itemCode: it.code,
          itemName: it.name,
          qty: qtys[i],
          uom: it.uom,
          rate: it.rate,
          amount: amounts[i],
          warehouse: 'Main Warehouse - MSE',
          deliveredQty: k > 3 ? qtys[i] : 0,
          fulfilmentPartner: 'marketplace',
        }),
      );
    }
  }
  await SalesOrder.bulkCreate(orders, { transaction, ignoreDuplicates: true });
  await SalesOrderItem.bulkCreate(lines, { transaction });
  // the month of credits reaches the aggregates with the seed (a read would fold them too)
  await foldCredits(true, { transaction });
}

export function salesBanner(): string[] {
  return [
    'Demo sales team (Central; a month of demo orders, password as above):',
    ...SALES_DEMO_USERS.map((u) => `  ${u.email.padEnd(36)} ${u.what}`),
    '  try: curl -s -b "$JAR" http://127.0.0.1:8000/api/method/svc.rep_dashboard.get_rep_kpis (after logging in as sales.rep@demo.svc.local)',
  ];
}
