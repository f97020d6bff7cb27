/**
 * What the organisation lets other domains read of its tables inside one statement of theirs (the
 * order path's joins, the actor's sales-person team, the sales board): the published attributes of
 * customers, addresses and sales persons. Everything else goes through org's services
 * (docs/development/database.md, "Access rules").
 */
import { publish } from '../db/sql-names.js';
import { Address } from './address.model.js';
import { Customer } from './customer.model.js';
import { SalesPerson } from './sales-person.model.js';

export const customerRead = publish(Customer, ['name', 'customerName', 'email', 'territory', 'assignedRep', 'disabled', 'priceList']);

export const addressRead = publish(Address, [
  'name',
  'customer',
  'addressTitle',
  'contactName',
  'addressLine1',
  'addressLine2',
  'city',
  'state',
  'pincode',
  'country',
  'phone',
  'email',
]);

export const salesPersonRead = publish(SalesPerson, [
  'name',
  'fullName',
  'parentSalesPerson',
  'isManager',
  'territory',
  'enabled',
  'commissionPlan',
  'subrepPct',
]);
