/**
 * Customer accounts created by the sales team (issue 14; spec "What the service does": accounts are
 * created by the sales team, each linked to one Price List). One service behind
 * POST /api/resource/Customer, POST /api/resource/Address and `svc customer create`: a rep creates
 * customers in its territory and becomes their assigned rep; a manager in its team's territories,
 * assigned to anyone of its team; an admin anywhere. Contract lists: canAssignPriceList.
 *
 * Issue 15: with `send_invitation` (the CLI's default when a contact e-mail is given), the same
 * transaction creates the customer's login (a User with the Customer role linked to it, no password)
 * and queues a login invitation through the outbox. The e-mail carries a one-time token (72 h by
 * default, only its sha256 stored, sealed in the outbox row) with which the invitee sets its password
 * (acceptCustomerInvitation). An e-mail that already has a user is refused (409): no second user.
 */
import Joi from 'joi';
import type { Actor } from '../auth/actor.js';
import { authorize, customerMatches } from '../auth/policy/index.js';
import { canAssignPriceList, customerAccountScope } from '../auth/policy/sales.rules.js';
import { findPriceList } from '../catalog/prices.js';
import { recordAudit } from '../audit/audit.service.js';
import { withTransaction, type Tx } from '../db/sequelize.js';
import {
  findCustomer,
  findSalesPersons,
  insertAddress,
  insertCustomer,
  nextCustomerName,
  territoryExists,
  territorySubtree,
  type NewAddress,
} from '../org/org.service.js';
import { countDocs, docType, getDoc, type Doc } from '../shared/doctype.js';
import { BusinessRuleError, InputError, PermissionError } from '../shared/errors.js';
import { demographicsIn, setDemographics } from './customer-demographics.service.js';
import { inviteCustomerLogin } from './customer-invitation.service.js';
import { easternDay } from './eastern.js';

export { acceptCustomerInvitation } from './customer-invitation.service.js';

const text = (max = 140) => Joi.string().trim().max(max);
const addressFields = {
  address_title: text(),
  address_type: Joi.string().valid('Shipping', 'Billing').default('Shipping'),
  address_line1: text(240).required(),
  address_line2: text(240).allow('', null),
  city: text().required(),
  state: text().allow('', null),
  pincode: text(20).allow('', null),
  country: text().default('United States'),
  phone: text(40).allow('', null),
  email_id: Joi.string().email({ tlds: false }).allow('', null),
  email: Joi.string().email({ tlds: false }).allow('', null),
  contact_name: text().allow('', null),
  is_shipping_address: Joi.alternatives(Joi.boolean(), Joi.number().valid(0, 1)),
  is_primary_address: Joi.alternatives(Joi.boolean(), Joi.number().valid(0, 1)),
};

/** Frappe clients send the whole document (doctype, naming_series, customer_group…): unknown fields are ignored. */
export const customerSchema = Joi.object<CustomerInput>({
  customer_name: text().required(),
  customer_type: Joi.string().valid('Company', 'Individual').default('Company'),
  territory: text().allow(null),
  default_price_list: text().allow(null),
  price_list: text().allow(null),
  assigned_rep: text().allow(null),
  email_id: Joi.string().email({ tlds: false }).allow('', null),
  email: Joi.string().email({ tlds: false }).allow('', null),
  mobile_no: text(40).allow('', null),
  phone: text(40).allow('', null),
  shipping_address: Joi.object(addressFields).unknown(true),
  // issue 15: also create the customer's login and mail it an invitation (Frappe creates no user: off unless asked)
  send_invitation: Joi.alternatives(Joi.boolean(), Joi.number().valid(0, 1)).default(false),
}).unknown(true);

export const addressSchema = Joi.object<AddressInput & { customer?: string; links?: { link_doctype: string; link_name: string }[] }>({
  ...addressFields,
  customer: text(),
  links: Joi.array().items(Joi.object({ link_doctype: Joi.string().required(), link_name: Joi.string().required() }).unknown(true)),
}).unknown(true);

function validated<T>(schema: Joi.ObjectSchema<T>, body: unknown): T {
  const result = schema.validate(body, { abortEarly: true });
  if (result.error) throw new InputError(result.error.details[0].message.replace(/"/g, ''));
  return result.value;
}

/** The document type an Address links to (Frappe's `links[].link_doctype`). */
const CUSTOMER_LINK = { doctype: 'Customer' } as const;

const flag = (v: unknown, dflt: boolean) => (v === undefined ? dflt : v === true || v === 1);
const blank = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);

interface AddressInput {
  address_title?: string;
  address_type: 'Shipping' | 'Billing';
  address_line1: string;
  address_line2?: string | null;
  city: string;
  state?: string | null;
  pincode?: string | null;
  country: string;
  phone?: string | null;
  email_id?: string | null;
  email?: string | null;
  contact_name?: string | null;
  is_shipping_address?: boolean | number;
  is_primary_address?: boolean | number;
}

interface CustomerInput {
  customer_name: string;
  customer_type: string;
  territory?: string | null;
  default_price_list?: string | null;
  price_list?: string | null;
  assigned_rep?: string | null;
  email_id?: string | null;
  email?: string | null;
  mobile_no?: string | null;
  phone?: string | null;
  shipping_address?: AddressInput;
  send_invitation: boolean | number;
}

function addressRow(customer: string, title: string, a: AddressInput, primary: boolean): NewAddress {
  return {
    customer,
    addressType: a.address_type,
    addressTitle: a.address_title ?? title,
    addressLine1: a.address_line1,
    addressLine2: blank(a.address_line2),
    city: a.city,
    state: blank(a.state),
    pincode: blank(a.pincode),
    country: a.country,
    phone: blank(a.phone),
    email: blank(a.email_id) ?? blank(a.email),
    contactName: blank(a.contact_name),
    isShippingAddress: flag(a.is_shipping_address, a.address_type === 'Shipping'),
    isPrimaryAddress: flag(a.is_primary_address, primary),
  };
}

/** The territory of a new customer: the one named (which must be the actor's to sell in), else the actor's own. */
async function chooseTerritory(actor: Actor, named: string | null | undefined, transaction: Tx): Promise<string | null> {
  const team = actor.team && actor.team.length > 1 ? await findSalesPersons(actor.team, { transaction }) : new Map();
  const scope = customerAccountScope(
    actor,
    [...team.values()].map((p: { territory: string | null }) => p.territory).filter((t): t is string => Boolean(t)),
  );
  const territory = named ?? scope.territories?.[0] ?? null;
  if (territory !== null && !(await territoryExists(territory, { transaction })))
    throw new BusinessRuleError(`Territory ${territory} not found`, 'LinkValidationError');
  if (scope.territories === null) return territory;
  const allowed = await territorySubtree(scope.territories, { transaction });
  if (territory === null || !allowed.includes(territory)) {
    throw new PermissionError(
      `Not permitted to create a Customer in territory ${territory ?? '(none)'}: yours ${allowed.length ? allowed.join(', ') : '(none)'}`,
    );
  }
  return territory;
}

/** The assigned rep: a rep itself; a manager anyone of its team (itself by default); an admin any sales person or none. */
async function chooseRep(actor: Actor, named: string | null | undefined, transaction: Tx): Promise<string | null> {
  const scope = customerAccountScope(actor, []);
  const rep = named ?? scope.defaultRep;
  if (rep === null) return null;
  if (scope.repIsSelf && rep !== scope.defaultRep) throw new PermissionError(`A sales rep becomes the assigned rep of the customers it creates (not ${rep})`);
  if (scope.reps !== null && !scope.reps.includes(rep)) throw new PermissionError(`Not permitted to assign a customer to ${rep}: not of your team`);
  const found = (await findSalesPersons([rep], { transaction })).get(rep);
  if (!found || !found.enabled) throw new BusinessRuleError(`Sales Person ${rep} not found`, 'LinkValidationError');
  return rep;
}

/** The price list: it must exist, sell, be enabled and valid today; a contract list must be the actor's to give. */
async function choosePriceList(actor: Actor, named: string, transaction: Tx): Promise<string> {
  const list = await findPriceList(named, { transaction });
  if (!list) throw new BusinessRuleError(`Price List ${named} not found`, 'LinkValidationError');
  if (!list.enabled || !list.selling) throw new BusinessRuleError(`Price List ${named} is not an enabled selling list`);
  const today = easternDay(new Date());
  if (list.valid_upto && list.valid_upto < today) throw new BusinessRuleError(`Price List ${named} expired on ${list.valid_upto}`);
  if (list.is_contract && !canAssignPriceList(actor, { isContract: true }, false)) {
    const governs = (await countDocs(actor, docType('Customer'), { filters: JSON.stringify([['price_list', '=', named]]) })) > 0;
    if (!canAssignPriceList(actor, { isContract: true }, governs)) {
      throw new PermissionError(`Not permitted to assign the contract Price List ${named}: it governs none of your customers`);
    }
  }
  return list.name;
}

/** The customer, its shipping address and patient details, the audit row and the invitation, in one transaction. */
async function insertCustomerAccount(
  actor: Actor,
  input: CustomerInput,
  contact: { email: string | null; invite: boolean; demographics: ReturnType<typeof demographicsIn> },
  transaction: Tx,
): Promise<{ name: string; invitation?: { email: string; expiresAt: Date } }> {
  const { email, invite, demographics } = contact;
  const territory = await chooseTerritory(actor, input.territory, transaction);
  const assignedRep = await chooseRep(actor, input.assigned_rep, transaction);
  const priceList = await choosePriceList(actor, input.default_price_list ?? input.price_list ?? 'Standard Selling', transaction);
  const customer = await nextCustomerName({ transaction });
  await insertCustomer(
    {
      name: customer,
      customerName: input.customer_name,
      customerType: input.customer_type,
      territory,
      priceList,
      assignedRep,
      email,
      phone: blank(input.mobile_no) ?? blank(input.phone),
    },
    { transaction },
  );
  if (input.shipping_address) await insertAddress(addressRow(customer, input.customer_name, input.shipping_address, true), { transaction });
  if (demographics) await setDemographics(actor, customer, demographics, transaction);
  await recordAudit(transaction, actor, {
    action: 'create',
    object_type: 'Customer',
    object_name: customer,
    detail: { territory, price_list: priceList, assigned_rep: assignedRep, login_invited: invite },
  });
  const invitation = invite
    ? await inviteCustomerLogin(actor, { name: customer, customerName: input.customer_name, territory, assignedRep, email: email! }, transaction)
    : undefined;
  return { name: customer, invitation };
}

/**
 * Creates a customer account (and its shipping address when given) as the sales team does; answers
 * the document, with `invitation_queued` (and the login's e-mail and the invitation's expiry) when
 * `send_invitation` was asked. Never the token.
 */
export async function createCustomerAccount(actor: Actor, body: Doc): Promise<Doc> {
  authorize(actor, 'create', 'Customer');
  const input = validated<CustomerInput>(customerSchema, body);
  const invite = input.send_invitation === true || input.send_invitation === 1;
  const email = blank(input.email_id) ?? blank(input.email);
  if (invite && !email) throw new InputError('send_invitation needs the contact e-mail (email_id)');
  const demographics = demographicsIn(body); // the Customer's patient (issue 26): only for those with the need
  const { name, invitation } = await withTransaction(undefined, (transaction) =>
    insertCustomerAccount(actor, input, { email, invite, demographics }, transaction),
  );
  const doc = await getDoc(actor, docType('Customer'), name);
  if (!invite) return doc;
  return { ...doc, invitation_queued: true, login_email: invitation!.email, invitation_expires_at: invitation!.expiresAt.toISOString() };
}

/** Adds an address to a customer the actor may see (Frappe: `links` to the Customer, or `customer`); answers the document. */
export async function createCustomerAddress(actor: Actor, body: Doc): Promise<Doc> {
  authorize(actor, 'create', 'Address');
  const input = validated<AddressInput & { customer?: string; links?: { link_doctype: string; link_name: string }[] }>(addressSchema, body);
  const customerName = input.customer ?? input.links?.find((l) => l.link_doctype === CUSTOMER_LINK.doctype)?.link_name;
  if (!customerName) throw new InputError('customer is required (or links with a Customer)');
  const name = await withTransaction(undefined, async (transaction) => {
    const customer = await findCustomer(customerName, { transaction });
    // a customer the actor may not see is reported exactly like one that does not exist
    if (!customer || !customerMatches(actor, customer.name, customer.territory, customer.assigned_rep)) {
      throw new BusinessRuleError(`Could not find Customer: ${customerName}`, 'LinkValidationError');
    }
    return insertAddress(addressRow(customer.name, customer.name, input, false), { transaction });
  });
  return getDoc(actor, docType('Address'), name);
}
