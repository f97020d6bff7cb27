import { execute, type Tx } from '../src/db/sequelize.js';
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

const ORG = `
INSERT INTO companies (name, abbr) VALUES ('MedSupply East LLC', 'MSE'), ('MedSupply West LLC', 'MSW') ON CONFLICT DO NOTHING;
INSERT INTO territories (name, parent_territory) VALUES ('United States', NULL) ON CONFLICT DO NOTHING;
INSERT INTO territories (name, parent_territory) VALUES ('East', 'United States'), ('West', 'United States') ON CONFLICT DO NOTHING;
INSERT INTO warehouses (name, warehouse_name, company, priority, label) VALUES
  ('Main Warehouse - MSE', 'Main Warehouse', 'MedSupply East LLC', 10, 'Newark, NJ (preferred)'),
  ('Overflow Warehouse - MSE', 'Overflow Warehouse', 'MedSupply East LLC', 20, 'Allentown, PA'),
  ('West Coast Warehouse - MSW', 'West Coast Warehouse', 'MedSupply West LLC', 30, 'Reno, NV'),
  ('Pharmacy Vault - MSW', 'Pharmacy Vault', 'MedSupply West LLC', 40, 'Reno, NV (controlled)')
  ON CONFLICT DO NOTHING;
INSERT INTO price_lists (name, currency, is_contract, valid_from, valid_upto) VALUES
  ('Standard Selling', 'USD', false, NULL, NULL),
  ('Wholesale', 'USD', false, NULL, NULL),
  ('Contract Pricing', 'USD', true, '2026-01-01', '2027-12-31'),
  ('Sales Channel', 'USD', false, NULL, NULL)
  ON CONFLICT DO NOTHING;
INSERT INTO sales_persons (name, full_name, parent_sales_person, is_manager, territory, commission_rate) VALUES
  ('Mary Manager', 'Mary Manager', NULL, true, 'East', 3) ON CONFLICT DO NOTHING;
INSERT INTO sales_persons (name, full_name, parent_sales_person, is_manager, territory, commission_rate, subrep_pct) VALUES
  ('Rick Rep', 'Rick Rep', 'Mary Manager', false, 'East', 5, NULL),
  ('Wendy West', 'Wendy West', NULL, false, 'West', 5, NULL)
  ON CONFLICT DO NOTHING;
INSERT INTO customers (name, customer_name, territory, price_list, assigned_rep, email, phone) VALUES
  ('CUST-0001', 'Harbor Family Clinic', 'East', 'Contract Pricing', 'Rick Rep', 'purchasing@harbor-clinic.example', '+1 201 555 0101'),
  ('CUST-0002', 'Sunset Wellness Center', 'West', 'Wholesale', 'Wendy West', 'orders@sunset-wellness.example', '+1 775 555 0102')
  ON CONFLICT DO NOTHING;
INSERT INTO addresses (name, customer, address_title, address_line1, address_line2, city, state, pincode, country, phone, email, contact_name, is_shipping_address, is_primary_address) VALUES
  ('CUST-0001-Shipping', 'CUST-0001', 'Harbor Family Clinic', '12 Harbor Street', 'Suite 200', 'Newark', 'NJ', '07102', 'United States', '+1 201 555 0101', 'purchasing@harbor-clinic.example', 'Hana Harbor', true, true),
  ('CUST-0001-Annex', 'CUST-0001', 'Harbor Family Clinic Annex', '40 Dock Road', NULL, 'Jersey City', 'NJ', '07302', 'United States', '+1 201 555 0111', 'annex@harbor-clinic.example', 'Ari Annex', true, false),
  ('CUST-0002-Shipping', 'CUST-0002', 'Sunset Wellness Center', '900 Sunset Blvd', NULL, 'Reno', 'NV', '89501', 'United States', '+1 775 555 0102', 'orders@sunset-wellness.example', 'Sam Sunset', true, true)
  ON CONFLICT DO NOTHING;
`;

let hashed: string | undefined;

/** Companies, warehouses, territories, price lists, sales team, two clinics and a user per role. */
export async function seedFoundation(transaction: Tx): Promise<void> {
  await execute(ORG, [], { transaction });
  hashed ??= await hashPassword(DEMO_PASSWORD);
  for (const u of DEMO_USERS) {
    await execute(
      `INSERT INTO users (email, full_name, password_hash, roles, customer, sales_person)
       SELECT $1, $2, $3, $4, $5, $6 WHERE NOT EXISTS (SELECT 1 FROM users WHERE lower(email) = lower($1))`,
      [u.email, u.full_name, hashed, u.roles, 'customer' in u ? u.customer : null, 'sales_person' in u ? u.sales_person : null],
      { transaction },
    );
  }
}

export function foundationBanner(): string[] {
  return ['Demo users (password for all: ' + DEMO_PASSWORD + '):', ...DEMO_USERS.map((u) => `  ${u.email.padEnd(36)} ${u.roles.join(', ')}`)];
}
