/**
 * Demo catalog (issue 3): every case a newcomer should see. Items owned by no vendor (the vendor
 * seed owns its own): in stock in several warehouses, out of stock, no price in a list, a contract
 * price with a validity period (and an expired one that falls back to Standard Selling), a 503A
 * item; a verified and an unverified doctor account and an API user of the demo clinic.
 * Dates are relative to the day the seed runs, so the validity cases stay true.
 */
import { execute, type Tx } from '../src/db/sequelize.js';
import { hashPassword } from '../src/shared/crypto.js';
import { DEMO_PASSWORD } from './foundation.seed.js';

/** A valid NPI (Luhn with the 80840 prefix) and DEA number of the verified demo doctor. */
export const DEMO_DOCTOR = { email: 'doctor@demo.svc.local', npi: '1234567893', dea: 'AB1234563' };

export const CATALOG_USERS = [
  { email: DEMO_DOCTOR.email, full_name: 'Dr. Dana Harbor', verified: true },
  { email: 'unverified.doctor@demo.svc.local', full_name: 'Dr. Uma Unverified', verified: false },
  { email: 'clinic.api@demo.svc.local', full_name: 'Harbor Clinic Integration', verified: false },
] as const;

const CATALOG = `
INSERT INTO item_groups (name) VALUES ('Needs classification'), ('Medical Supplies'), ('Diagnostics'), ('Compounded Medications') ON CONFLICT DO NOTHING;
INSERT INTO uoms (name, must_be_whole_number) VALUES ('Nos', true), ('Box', true), ('Vial', true), ('Kit', true) ON CONFLICT DO NOTHING;
INSERT INTO items (item_code, item_name, description, stock_uom, item_group, standard_rate, workflow_state, published, disabled, is_503a) VALUES
  ('DEMO-BP-CUFF', 'Blood Pressure Cuff, Adult', '<p>Reusable adult cuff with <strong>latex-free</strong> bladder.</p>', 'Nos', 'Diagnostics', 39.00, 'Approved', true, false, false),
  ('DEMO-N95', 'N95 Respirator Mask (20)', '<p>NIOSH-approved N95 respirators, box of 20.</p>', 'Box', 'Medical Supplies', 25.00, 'Approved', true, false, false),
  ('DEMO-THERM-IR', 'Infrared Thermometer', '<p>Non-contact forehead thermometer.</p>', 'Nos', 'Diagnostics', 24.00, 'Approved', true, false, false),
  ('DEMO-ALC-PREP', 'Alcohol Prep Pads (200)', '<p>70% isopropyl alcohol pads.</p>', 'Box', 'Medical Supplies', 5.00, 'Approved', true, false, false),
  ('DEMO-OTOSCOPE', 'Pocket Otoscope', '<p>LED pocket otoscope (disabled by its vendor).</p>', 'Nos', 'Diagnostics', 59.00, 'Approved', true, true, false),
  ('DEMO-TESTO-503A', 'Testosterone Cypionate 200 mg/mL 10 mL (compounded)', '<p>503A compounded preparation; prescription required.</p>', 'Vial', 'Compounded Medications', 85.00, 'Approved', true, false, true)
  ON CONFLICT DO NOTHING;
INSERT INTO item_prices (price_list, item_code, rate, uom, valid_from, valid_upto) VALUES
  ('Standard Selling', 'DEMO-BP-CUFF', 39.00, 'Nos', NULL, NULL),
  ('Wholesale', 'DEMO-BP-CUFF', 36.00, 'Nos', NULL, NULL),
  ('Contract Pricing', 'DEMO-BP-CUFF', 34.00, 'Nos', CURRENT_DATE - 30, CURRENT_DATE + 180),
  ('Standard Selling', 'DEMO-N95', 25.00, 'Box', NULL, NULL),
  ('Standard Selling', 'DEMO-THERM-IR', 24.00, 'Nos', NULL, NULL),
  ('Wholesale', 'DEMO-THERM-IR', 22.00, 'Nos', NULL, NULL),
  ('Standard Selling', 'DEMO-ALC-PREP', 5.00, 'Box', NULL, NULL),
  ('Wholesale', 'DEMO-ALC-PREP', 4.60, 'Box', NULL, NULL),
  ('Contract Pricing', 'DEMO-ALC-PREP', 3.90, 'Box', CURRENT_DATE - 400, CURRENT_DATE - 10),
  ('Standard Selling', 'DEMO-OTOSCOPE', 59.00, 'Nos', NULL, NULL),
  ('Standard Selling', 'DEMO-TESTO-503A', 85.00, 'Vial', NULL, NULL),
  ('Contract Pricing', 'DEMO-TESTO-503A', 79.00, 'Vial', NULL, NULL),
  ('Wholesale', 'DEMO-TESTO-503A', 80.00, 'Vial', NULL, NULL)
  ON CONFLICT DO NOTHING;
INSERT INTO bins (item_code, warehouse, actual_qty) VALUES
  ('DEMO-BP-CUFF', 'Main Warehouse - MSE', 60), ('DEMO-BP-CUFF', 'Overflow Warehouse - MSE', 25), ('DEMO-BP-CUFF', 'West Coast Warehouse - MSW', 10),
  ('DEMO-N95', 'Main Warehouse - MSE', 500), ('DEMO-N95', 'West Coast Warehouse - MSW', 200),
  ('DEMO-THERM-IR', 'Main Warehouse - MSE', 0),
  ('DEMO-ALC-PREP', 'Main Warehouse - MSE', 1000), ('DEMO-ALC-PREP', 'Overflow Warehouse - MSE', 300),
  ('DEMO-OTOSCOPE', 'Main Warehouse - MSE', 15),
  ('DEMO-TESTO-503A', 'Pharmacy Vault - MSW', 30)
  ON CONFLICT DO NOTHING;
`;

let hashed: string | undefined;

/** The demo catalog, doctor accounts and the clinic's API user. */
export async function seedCatalog(transaction: Tx): Promise<void> {
  await execute(CATALOG, [], { transaction });
  hashed ??= await hashPassword(DEMO_PASSWORD);
  for (const u of CATALOG_USERS) {
    await execute(
      `INSERT INTO users (email, full_name, password_hash, roles, customer)
       SELECT $1, $2, $3, ARRAY['Customer'], 'CUST-0001' WHERE NOT EXISTS (SELECT 1 FROM users WHERE lower(email) = lower($1))`,
      [u.email, u.full_name, hashed],
      { transaction },
    );
  }
  await execute(
    `UPDATE users SET doctor_npi = $2, doctor_dea_number = $3, doctor_verified_at = now(), doctor_verified_by = 'seed'
      WHERE lower(email) = lower($1) AND doctor_verified_at IS NULL`,
    [DEMO_DOCTOR.email, DEMO_DOCTOR.npi, DEMO_DOCTOR.dea],
    { transaction },
  );
}

export function catalogBanner(): string[] {
  return [
    'Demo catalog and 503A (password as above):',
    `  ${DEMO_DOCTOR.email.padEnd(36)} verified doctor of CUST-0001 (NPI ${DEMO_DOCTOR.npi}); can order DEMO-TESTO-503A`,
    `  ${'unverified.doctor@demo.svc.local'.padEnd(36)} unverified doctor (503A orders → 403)`,
    `  ${'clinic.api@demo.svc.local'.padEnd(36)} API user of CUST-0001: svc user generate-keys clinic.api@demo.svc.local`,
    '  Items: DEMO-BP-CUFF (3 warehouses, contract price with validity), DEMO-N95 (no Wholesale price), DEMO-THERM-IR (out of stock),',
    '         DEMO-ALC-PREP (expired contract price → Standard Selling), DEMO-OTOSCOPE (disabled, hidden), DEMO-TESTO-503A (503A)',
  ];
}
