/** Where to reach many customers at once (a recall notice to thousands of clinics). */
import { Op } from 'sequelize';
import type { Tx } from '../db/sequelize.js';
import { Address } from './address.model.js';
import { Customer } from './customer.model.js';

/**
 * Where to reach each of many customers, by id: its e-mail, else the e-mail of one of its addresses
 * (a recall notice to thousands of clinics: one statement per call, not one per clinic).
 */
export async function customerContacts(
  names: string[],
  opts: { transaction?: Tx } = {},
): Promise<Map<string, { customer_name: string; email: string | null }>> {
  if (names.length === 0) return new Map();
  const unique = [...new Set(names)];
  const customers = await Customer.findAll({
    attributes: ['name', 'customerName', 'email'],
    where: { name: { [Op.in]: unique } },
    transaction: opts.transaction,
  });
  const missing = customers.filter((c) => !c.email).map((c) => c.name);
  const addresses = missing.length
    ? await Address.findAll({
        attributes: ['customer', 'email'],
        where: { customer: { [Op.in]: missing }, email: { [Op.ne]: null } },
        order: [['name', 'ASC']],
        transaction: opts.transaction,
      })
    : [];
  const addressEmail = new Map<string, string>();
  for (const a of addresses) if (a.customer && a.email && !addressEmail.has(a.customer)) addressEmail.set(a.customer, a.email);
  return new Map(customers.map((c) => [c.name, { customer_name: c.customerName, email: c.email ?? addressEmail.get(c.name) ?? null }]));
}
