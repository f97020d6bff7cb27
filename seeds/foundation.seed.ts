import type { Tx } from '../src/db/sequelize.js';
import { Warehouse } from '../src/catalog/warehouse.model.js';
import { PriceList } from '../src/catalog/price-list.model.js';
import { Address } from '../src/org/address.model.js';
import { Company } from '../src/org/company.model.js';
import { Customer } from '../src/org/customer.model.js';
import { runtime } from '../src/shared/runtime.js';

/** A demo Customer's patient demographics, sealed as the service keeps them (sales/customer-demographics.service.ts). */
function demoPatient(p: { first: string; last: string; dateOfBirth: string; gender: string }) {
  const { cipher } = runtime();
  return {
    patientFirstName: cipher.encrypt(p.first),
    patientLastName: cipher.encrypt(p.last),
    patientDateOfBirth: cipher.encrypt(p.dateOfBirth),
    patientGender: cipher.encrypt(p.gender),
  };
}
import { SalesPerson } from '../src/org/sales-person.model.js';
import { Territory } from '../src/org/territory.model.js';
import { User } from '../src/users/user.model.js';
import { hashPassword } from '../src/shared/crypto.js';

/** The demo password of every demo user (printed by npm start; demo data only). */
export const DEMO_PASSWORD = 'SvcDemo!2026';

export const DEMO_USERS = [
  { email: 'admin@demo.svc.local', full_name: 'Ada Admin', roles: ['System Manager'] },
  { email: 'marketplace.admin@demo.svc.local', full_name: 'Mona Marketplace', roles: ['Marketplace Admin'] },
  { email: 'officer@demo.svc.local', full_name: 'Oscar Officer', roles: ['Marketplace Officer'] },
  { email: 'catalog@demo.svc.local', full_name: 'Cara Catalog', roles: ['Catalog Manager'] },
  { email: 'ops@demo.svc.local', full_name: 'Otto Operations', roles: ['Operations'] },
  { email: 'manager@demo.svc.local', full_name: 'Mary Manager', roles: ['Sales Manager'], sales_person: 'Mary Manager' },
  { email: 'rep@demo.svc.local', full_name: 'Rick Rep', roles: ['Sales Rep'], sales_person: 'Rick Rep' },
  { email: 'west.rep@demo.svc.local', full_name: 'Wendy West', roles: ['Sales Rep'], sales_person: 'Wendy West' },
  { email: 'clinic@demo.svc.local', full_name: 'Harbor Clinic Buyer', roles: ['Customer'], customer: 'CUST-0001' },
  { email: 'clinic2@demo.svc.local', full_name: 'Sunset Wellness Buyer', roles: ['Customer'], customer: 'CUST-0002' },
  { email: 'vendor@demo.svc.local', full_name: 'Val Vendor', roles: ['Vendor'] },
] as const;

let hashed: string | undefined;

/** Companies, warehouses, territories, price lists, sales team, two clinics and a user per role. */
export async function seedFoundation(transaction: Tx): Promise<void> {
  const once = { transaction, ignoreDuplicates: true }; // ON CONFLICT DO NOTHING: a second run changes nothing
  await Company.bulkCreate(
    [
      { name: 'MedSupply East LLC', abbr: 'MSE' },
      { name: 'MedSupply West LLC', abbr: 'MSW' },
    ],
    once,
  );
  await Territory.bulkCreate([{ name: 'United States', parentTerritory: null }], once);
  await Territory.bulkCreate(
    [
      { name: 'East', parentTerritory: 'United States' },
      { name: 'West', parentTerritory: 'United States' },
    ],
    once,
  );
  await Warehouse.bulkCreate(
    [
      { name: 'Main Warehouse - MSE', warehouseName: 'Main Warehouse', company: 'MedSupply East LLC', priority: 10, label: 'Newark, NJ (preferred)' },
      { name: 'Overflow Warehouse - MSE', warehouseName: 'Overflow Warehouse', company: 'MedSupply East LLC', priority: 20, label: 'Allentown, PA' },
      { name: 'West Coast Warehouse - MSW', warehouseName: 'West Coast Warehouse', company: 'MedSupply West LLC', priority: 30, label: 'Reno, NV' },
      { name: 'Pharmacy Vault - MSW', warehouseName: 'Pharmacy Vault', company: 'MedSupply West LLC', priority: 40, label: 'Reno, NV (controlled)' },
    ],
    once,
  );
  await PriceList.bulkCreate(
    [
      { name: 'Standard Selling', currency: 'USD', isContract: false, validFrom: null, validUpto: null },
      { name: 'Wholesale', currency: 'USD', isContract: false, validFrom: null, validUpto: null },
      { name: 'Contract Pricing', currency: 'USD', isContract: true, validFrom: '2026-01-01', validUpto: '2027-12-31' },
      { name: 'Sales Channel', currency: 'USD', isContract: false, validFrom: null, validUpto: null },
    ],
    once,
  );
  await SalesPerson.bulkCreate(
    [{ name: 'Mary Manager', fullName: 'Mary Manager', parentSalesPerson: null, isManager: true, territory: 'East', commissionRate: 3 }],
    once,
  );
  await SalesPerson.bulkCreate(
    [
      { name: 'Rick Rep', fullName: 'Rick Rep', parentSalesPerson: 'Mary Manager', isManager: false, territory: 'East', commissionRate: 5, subrepPct: null },
      { name: 'Wendy West', fullName: 'Wendy West', parentSalesPerson: null, isManager: false, territory: 'West', commissionRate: 5, subrepPct: null },
    ],
    once,
  );
  await Customer.bulkCreate(
    [
      {
        name: 'CUST-0001',
        customerName: 'Harbor Family Clinic',
        territory: 'East',
        priceList: 'Contract Pricing',
        assignedRep: 'Rick Rep',
        email: 'purchasing@harbor-clinic.example',
        phone: '+1 201 555 0101',
        // the clinic's own patient at the pharmacy partner (svc.rxpartner.ensure_patient; issue 26): patient data, encrypted
        ...demoPatient({ first: 'Dana', last: 'Harbor', dateOfBirth: '1975-01-31', gender: 'female' }),
      },
      {
        name: 'CUST-0002',
        customerName: 'Sunset Wellness Center',
        territory: 'West',
        priceList: 'Wholesale',
        assignedRep: 'Wendy West',
        email: 'orders@sunset-wellness.example',
        phone: '+1 775 555 0102',
      },
    ],
    once,
  );
  await Address.bulkCreate(
    [
      {
        name: 'CUST-0001-Shipping',
        customer: 'CUST-0001',
        addressTitle: 'Harbor Family Clinic',
        addressLine1: '12 Harbor Street',
        addressLine2: 'Suite 200',
        city: 'Newark',
        state: 'NJ',
        pincode: '07102',
        country: 'United States',
        phone: '+1 201 555 0101',
        email: 'purchasing@harbor-clinic.example',
        contactName: 'Hana Harbor',
        isShippingAddress: true,
        isPrimaryAddress: true,
      },
      {
        name: 'CUST-0001-Annex',
        customer: 'CUST-0001',
        addressTitle: 'Harbor Family Clinic Annex',
        addressLine1: '40 Dock Road',
        addressLine2: null,
        city: 'Jersey City',
        state: 'NJ',
        pincode: '07302',
        country: 'United States',
        phone: '+1 201 555 0111',
        email: 'annex@harbor-clinic.example',
        contactName: 'Ari Annex',
        isShippingAddress: true,
        isPrimaryAddress: false,
      },
      {
        name: 'CUST-0002-Shipping',
        customer: 'CUST-0002',
        addressTitle: 'Sunset Wellness Center',
        addressLine1: '900 Sunset Blvd',
        addressLine2: null,
        city: 'Reno',
        state: 'NV',
        pincode: '89501',
        country: 'United States',
        phone: '+1 775 555 0102',
        email: 'orders@sunset-wellness.example',
        contactName: 'Sam Sunset',
        isShippingAddress: true,
        isPrimaryAddress: true,
      },
    ],
    once,
  );
  hashed ??= await hashPassword(DEMO_PASSWORD);
  // an existing user of the same e-mail (any case: the unique index is on lower(email)) is kept as it is
  await User.bulkCreate(
    DEMO_USERS.map((u) => ({
      email: u.email,
      fullName: u.full_name,
      passwordHash: hashed!,
      roles: [...u.roles],
      customer: 'customer' in u ? u.customer : null,
      salesPerson: 'sales_person' in u ? u.sales_person : null,
    })),
    once,
  );
}

export function foundationBanner(): string[] {
  return ['Demo users (password for all: ' + DEMO_PASSWORD + '):', ...DEMO_USERS.map((u) => `  ${u.email.padEnd(36)} ${u.roles.join(', ')}`)];
}
