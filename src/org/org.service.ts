/**
 * The organisation's records as other domains need them: companies, customers and their addresses
 * (the org domain owns these tables; nobody else queries them).
 */
import { Op } from 'sequelize';
import type { Tx } from '../db/sequelize.js';
import { Address } from './address.model.js';
import { Company } from './company.model.js';
import { Customer } from './customer.model.js';
import { SalesPerson } from './sales-person.model.js';
import { Territory } from './territory.model.js';

/** Creates the company unless one of that name exists (a vendor's own company). */
export async function ensureCompany(name: string, abbr: string | null, opts: { transaction?: Tx } = {}): Promise<void> {
  await Company.bulkCreate([{ name, abbr }], { ignoreDuplicates: true, transaction: opts.transaction });
}

/** A customer's scope facts (territory, assigned rep) for the policy, or undefined. */
export async function findCustomer(
  name: string,
  opts: { transaction?: Tx } = {},
): Promise<{ name: string; territory: string | null; assigned_rep: string | null } | undefined> {
  const c = await Customer.findByPk(name, { attributes: ['name', 'territory', 'assignedRep'], transaction: opts.transaction });
  return c ? { name: c.name, territory: c.territory, assigned_rep: c.assignedRep } : undefined;
}

/** The customer's shipping address to use when none is named: the primary one, else the first by name. */
export async function defaultShippingAddress(customer: string, opts: { transaction?: Tx } = {}): Promise<string | undefined> {
  const a = await Address.findOne({
    attributes: ['name'],
    where: { customer, isShippingAddress: true },
    order: [
      ['isPrimaryAddress', 'DESC'],
      ['name', 'ASC'],
    ],
    transaction: opts.transaction,
  });
  return a?.name;
}

/** Display names of customers, by id. */
export async function customerNames(names: string[], opts: { transaction?: Tx } = {}): Promise<Map<string, string>> {
  if (names.length === 0) return new Map();
  const rows = await Customer.findAll({
    attributes: ['name', 'customerName'],
    where: { name: { [Op.in]: [...new Set(names)] } },
    transaction: opts.transaction,
  });
  return new Map(rows.map((c) => [c.name, c.customerName]));
}

/** Where to reach a clinic about an order: the customer's e-mail and the shipping address's. */
export async function orderContactEmails(
  customer: string,
  addressName: string | null,
  opts: { transaction?: Tx } = {},
): Promise<{ customer_email: string | null; address_email: string | null }> {
  const c = await Customer.findByPk(customer, { attributes: ['email'], transaction: opts.transaction });
  const a = addressName ? await Address.findByPk(addressName, { attributes: ['email'], transaction: opts.transaction }) : null;
  return { customer_email: c?.email ?? null, address_email: a?.email ?? null };
}

export interface PostalAddress {
  name: string;
  title: string;
  contact_name: string | null;
  line1: string;
  line2: string | null;
  city: string;
  state: string | null;
  postal_code: string | null;
  country: string;
  phone: string | null;
  email: string | null;
}

/** A shipping address as a carrier or fulfilment partner needs it, or undefined. */
export async function postalAddressOf(name: string, opts: { transaction?: Tx } = {}): Promise<PostalAddress | undefined> {
  const a = await Address.findByPk(name, { transaction: opts.transaction });
  if (!a) return undefined;
  return {
    name: a.name,
    title: a.addressTitle,
    contact_name: a.contactName,
    line1: a.addressLine1,
    line2: a.addressLine2,
    city: a.city,
    state: a.state,
    postal_code: a.pincode,
    country: a.country,
    phone: a.phone,
    email: a.email,
  };
}

// ---- the sales team's customers and sales persons (issue 14; decisions in sales/) --------------------

/** Customers whose assigned rep is `rep`, newest first, as get_my_customers shows them. */
export async function customersAssignedTo(rep: string, limit: number, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>[]> {
  const rows = await Customer.findAll({
    where: { assignedRep: rep },
    order: [
      ['createdAt', 'DESC'],
      ['name', 'ASC'],
    ],
    limit,
    transaction: opts.transaction,
  });
  return rows.map((c) => ({
    name: c.name,
    customer_name: c.customerName,
    customer_type: c.customerType,
    territory: c.territory,
    price_list: c.priceList,
    assigned_rep: c.assignedRep,
    email: c.email,
    phone: c.phone,
    disabled: c.disabled ? 1 : 0,
    creation: c.createdAt,
  }));
}

/** The territories named and every territory below them (the territory tree). */
export async function territorySubtree(roots: string[], opts: { transaction?: Tx } = {}): Promise<string[]> {
  if (roots.length === 0) return [];
  const all = await Territory.findAll({ attributes: ['name', 'parentTerritory'], transaction: opts.transaction });
  const out = new Set(roots.filter((r) => all.some((t) => t.name === r)));
  for (let grew = true; grew;) {
    grew = false;
    for (const t of all) {
      if (t.parentTerritory && out.has(t.parentTerritory) && !out.has(t.name)) {
        out.add(t.name);
        grew = true;
      }
    }
  }
  return [...out];
}

export async function territoryExists(name: string, opts: { transaction?: Tx } = {}): Promise<boolean> {
  return (await Territory.findByPk(name, { attributes: ['name'], transaction: opts.transaction })) !== null;
}

export interface SalesPersonFacts {
  name: string;
  full_name: string;
  parent: string | null;
  is_manager: boolean;
  territory: string | null;
  subrep_pct: number | null;
  plan: string | null;
  enabled: boolean;
}

/** Sales persons by name. */
export async function findSalesPersons(names: string[], opts: { transaction?: Tx } = {}): Promise<Map<string, SalesPersonFacts>> {
  if (names.length === 0) return new Map();
  const rows = await SalesPerson.findAll({ where: { name: { [Op.in]: [...new Set(names)] } }, transaction: opts.transaction });
  return new Map(
    rows.map((s) => [
      s.name,
      {
        name: s.name,
        full_name: s.fullName,
        parent: s.parentSalesPerson,
        is_manager: s.isManager,
        territory: s.territory,
        subrep_pct: s.subrepPct === null ? null : Number(s.subrepPct),
        plan: s.commissionPlan,
        enabled: s.enabled,
      },
    ]),
  );
}

/** A sales person name not taken yet: the full name, else "<full name> (<n>)". */
export async function freeSalesPersonName(fullName: string, opts: { transaction?: Tx } = {}): Promise<string> {
  for (let n = 1; ; n++) {
    const name = n === 1 ? fullName : `${fullName} (${n})`;
    if (!(await SalesPerson.findByPk(name, { attributes: ['name'], transaction: opts.transaction }))) return name;
  }
}

/** Adds a sales person below `parent` (a sub-rep when `subrepPct` is set). */
export async function insertSalesPerson(
  row: { name: string; fullName: string; parent: string | null; territory: string | null; subrepPct: number | null; plan: string | null },
  opts: { transaction: Tx },
): Promise<void> {
  await SalesPerson.create(
    {
      name: row.name,
      fullName: row.fullName,
      parentSalesPerson: row.parent,
      isManager: false,
      territory: row.territory,
      subrepPct: row.subrepPct,
      commissionPlan: row.plan,
    },
    { transaction: opts.transaction },
  );
}

/** The next customer id of the naming series CUST-####, under a transaction-level lock (concurrent creations take turns). */
export async function nextCustomerName(opts: { transaction: Tx }): Promise<string> {
  const seq = Customer.sequelize!;
  await seq.query(`SELECT pg_advisory_xact_lock(hashtext('svc:customer-naming'))`, { transaction: opts.transaction });
  const [row] = (await seq.query(
    `SELECT COALESCE(max(substring(name FROM '^CUST-([0-9]+)$')::int), 0) + 1 AS n FROM ${Customer.getTableName() as string} WHERE name ~ '^CUST-[0-9]+$'`,
    { transaction: opts.transaction, plain: false, raw: true },
  )) as unknown as [{ n: number }[]];
  return `CUST-${String(row[0].n).padStart(4, '0')}`;
}

export interface NewCustomer {
  name: string;
  customerName: string;
  customerType: string;
  territory: string | null;
  priceList: string;
  assignedRep: string | null;
  email: string | null;
  phone: string | null;
}

export async function insertCustomer(row: NewCustomer, opts: { transaction: Tx }): Promise<void> {
  await Customer.create(row, { transaction: opts.transaction });
}

export interface NewAddress {
  customer: string;
  addressType: string;
  addressTitle: string;
  addressLine1: string;
  addressLine2: string | null;
  city: string;
  state: string | null;
  pincode: string | null;
  country: string;
  phone: string | null;
  email: string | null;
  contactName: string | null;
  isShippingAddress: boolean;
  isPrimaryAddress: boolean;
}

/**
 * Adds an address named as Frappe names it, `<customer>-<type>` (then -2, -3…); a primary one
 * makes the customer's other addresses non-primary.
 */
export async function insertAddress(row: NewAddress, opts: { transaction: Tx }): Promise<string> {
  const base = `${row.customer}-${row.addressType}`;
  const taken = new Set(
    (await Address.findAll({ attributes: ['name'], where: { name: { [Op.like]: `${base}%` } }, transaction: opts.transaction })).map((a) => a.name),
  );
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
  if (row.isPrimaryAddress) await Address.update({ isPrimaryAddress: false }, { where: { customer: row.customer }, transaction: opts.transaction });
  await Address.create(
    {
      name,
      customer: row.customer,
      addressTitle: row.addressTitle,
      addressLine1: row.addressLine1,
      addressLine2: row.addressLine2,
      city: row.city,
      state: row.state,
      pincode: row.pincode,
      country: row.country,
      phone: row.phone,
      email: row.email,
      contactName: row.contactName,
      isShippingAddress: row.isShippingAddress,
      isPrimaryAddress: row.isPrimaryAddress,
    },
    { transaction: opts.transaction },
  );
  return name;
}
