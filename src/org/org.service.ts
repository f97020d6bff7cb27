/**
 * The organisation's records as other domains need them: companies, customers and their addresses
 * (the org domain owns these tables; nobody else queries them).
 */
import { Op } from 'sequelize';
import type { Tx } from '../db/sequelize.js';
import { Address } from './address.model.js';
import { Company } from './company.model.js';
import { Customer } from './customer.model.js';

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
