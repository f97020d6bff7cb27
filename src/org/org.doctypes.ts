/**
 * Organisation records reachable at /api/resource (read-only through the API, but for the sales
 * team's Customer and Address creation, served through the customer-accounts port).
 */
import { registerDocType } from '../shared/doctype.js';
import { Address } from './address.model.js';
import { Company } from './company.model.js';
import { namesOf } from '../db/sql-names.js';
import { Customer } from './customer.model.js';
import { CustomerPartnerPatient } from './customer-partner-patient.model.js';
import { SalesPerson } from './sales-person.model.js';
import { Territory } from './territory.model.js';
import { customerAccounts } from './customer-accounts.port.js';

const stamps = { creation: 'createdAt', modified: 'updatedAt' };

/** The Customer's own patient at rxpartner (ensure_patient, issue 13): the partner's opaque id when active, else null. */
function rxpartnerPatientId(alias: string): string {
  const { t, c } = namesOf(CustomerPartnerPatient);
  return `(SELECT p.${c.partnerPatientId} FROM ${t} p WHERE p.${c.customer} = ${alias}.name AND p.${c.partner} = 'rxpartner' AND p.${c.patientKey} = '' AND p.${c.status} = 'active')`;
}
const byName: [string, 'ASC'][] = [['name', 'ASC']];

registerDocType({
  name: 'Customer',
  model: Customer,
  fields: {
    name: 'name',
    customer_name: 'customerName',
    customer_type: 'customerType',
    territory: 'territory',
    price_list: 'priceList',
    default_price_list: 'priceList',
    assigned_rep: 'assignedRep',
    email: 'email',
    phone: 'phone',
    disabled: 'disabled',
    rxpartner_patient_id: rxpartnerPatientId,
    ...stamps,
  },
  listFields: ['name', 'customer_name'],
  defaultOrder: byName,
  create: (actor, body) => customerAccounts().createCustomer(actor, body),
  // the patient demographics (issue 26) are never in `fields` (ciphertext): the document read adds them for those with the need
  get: (actor, name) => customerAccounts().readCustomer(actor, name),
  update: (actor, name, body) => customerAccounts().updateCustomer(actor, name, body),
});

registerDocType({
  name: 'Address',
  model: Address,
  fields: {
    name: 'name',
    customer: 'customer',
    address_title: 'addressTitle',
    address_line1: 'addressLine1',
    address_line2: 'addressLine2',
    city: 'city',
    state: 'state',
    pincode: 'pincode',
    country: 'country',
    phone: 'phone',
    email: 'email',
    is_shipping_address: 'isShippingAddress',
    is_primary_address: 'isPrimaryAddress',
    contact_name: 'contactName',
    ...stamps,
  },
  defaultOrder: byName,
  create: (actor, body) => customerAccounts().createAddress(actor, body),
});

registerDocType({ name: 'Company', model: Company, fields: { name: 'name', company_name: 'name', abbr: 'abbr', ...stamps }, defaultOrder: byName });

registerDocType({
  name: 'Territory',
  model: Territory,
  fields: { name: 'name', territory_name: 'name', parent_territory: 'parentTerritory', ...stamps },
  defaultOrder: byName,
});

registerDocType({
  name: 'Sales Person',
  model: SalesPerson,
  fields: {
    name: 'name',
    sales_person_name: 'fullName',
    parent_sales_person: 'parentSalesPerson',
    is_group: 'isManager',
    territory: 'territory',
    commission_rate: 'commissionRate',
    commission_plan: 'commissionPlan',
    subrep_pct: 'subrepPct',
    enabled: 'enabled',
    ...stamps,
  },
  defaultOrder: byName,
});
