/**
 * Customer accounts as the sales team and operations read them (`svc customer list|show`): within the
 * policy's customer scope (a rep sees the territory's and the team's customers, operations all).
 */
import { Op, type WhereOptions } from 'sequelize';
import { boundLiteral } from '../db/sql-names.js';
import { authorize, scopeOf, type AccessActor as Actor } from '../shared/access.js';
import { NotFoundError } from '../shared/errors.js';
import { Address } from './address.model.js';
import { Customer } from './customer.model.js';

export interface CustomerSummary {
  name: string;
  customer_name: string;
  customer_type: string;
  territory: string | null;
  price_list: string | null;
  assigned_rep: string | null;
  email: string | null;
  disabled: boolean;
}

/** The policy's scope on customers as a Sequelize condition. */
function scoped(actor: Actor): WhereOptions {
  const scope = scopeOf(actor, 'Customer', `"${Customer.name}"`);
  return boundLiteral(scope.sql, scope.bind);
}

const summary = (c: Customer): CustomerSummary => ({
  name: c.name,
  customer_name: c.customerName,
  customer_type: c.customerType,
  territory: c.territory,
  price_list: c.priceList,
  assigned_rep: c.assignedRep,
  email: c.email,
  disabled: c.disabled,
});

/** Customers the actor may see, by name; filters by territory, rep, or a search in the name. */
export async function listCustomers(
  actor: Actor,
  filters: { territory?: string; rep?: string; search?: string; limit?: number } = {},
): Promise<CustomerSummary[]> {
  authorize(actor, 'read', 'Customer');
  const and: WhereOptions[] = [scoped(actor)];
  if (filters.territory) and.push({ territory: filters.territory });
  if (filters.rep) and.push({ assignedRep: filters.rep });
  if (filters.search) and.push({ [Op.or]: [{ name: { [Op.iLike]: `%${filters.search}%` } }, { customerName: { [Op.iLike]: `%${filters.search}%` } }] });
  const rows = await Customer.findAll({ where: { [Op.and]: and }, order: [['name', 'ASC']], limit: Math.min(filters.limit ?? 200, 1000) });
  return rows.map(summary);
}

/** One customer with its addresses (404 outside the actor's scope, like over HTTP). */
export async function getCustomer(
  actor: Actor,
  name: string,
): Promise<CustomerSummary & { phone: string | null; addresses: { name: string; title: string; lines: string; shipping: boolean; primary: boolean }[] }> {
  authorize(actor, 'read', 'Customer');
  const c = await Customer.findOne({ where: { [Op.and]: [{ name }, scoped(actor)] } });
  if (!c) throw new NotFoundError(`Customer ${name} not found`);
  const addresses = await Address.findAll({ where: { customer: name }, order: [['name', 'ASC']] });
  return {
    ...summary(c),
    phone: c.phone,
    addresses: addresses.map((a) => ({
      name: a.name,
      title: a.addressTitle,
      lines: [a.addressLine1, a.addressLine2, a.city, a.state, a.pincode, a.country].filter(Boolean).join(', '),
      shipping: a.isShippingAddress,
      primary: a.isPrimaryAddress,
    })),
  };
}
