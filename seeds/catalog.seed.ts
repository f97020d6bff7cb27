/**
 * Demo catalog (issue 3): every case a newcomer should see. Items owned by no vendor (the vendor
 * seed owns its own): in stock in several warehouses, out of stock, no price in a list, a contract
 * price with a validity period (and an expired one that falls back to Standard Selling), a 503A
 * item; a verified and an unverified doctor account and an API user of the demo clinic.
 * Dates are relative to the day the seed runs, so the validity cases stay true.
 */
import { Op, col, fn, literal, where } from 'sequelize';
import type { Tx } from '../src/db/sequelize.js';
import { Bin } from '../src/catalog/bin.model.js';
import { ItemGroup } from '../src/catalog/item-group.model.js';
import { ItemPrice } from '../src/catalog/item-price.model.js';
import { Item } from '../src/catalog/item.model.js';
import { Uom } from '../src/catalog/uom.model.js';
import { User } from '../src/users/user.model.js';
import { hashPassword } from '../src/shared/crypto.js';
import { DEMO_PASSWORD } from './foundation.seed.js';

/** A valid NPI (Luhn with the 80840 prefix) and DEA number of the verified demo doctor. */
export const DEMO_DOCTOR = { email: 'doctor@demo.svc.local', npi: '1234567893', dea: 'AB1234563' };

export const CATALOG_USERS = [
  { email: DEMO_DOCTOR.email, full_name: 'Dr. Dana Harbor', verified: true },
  { email: 'unverified.doctor@demo.svc.local', full_name: 'Dr. Uma Unverified', verified: false },
  { email: 'clinic.api@demo.svc.local', full_name: 'Harbor Clinic Integration', verified: false },
] as const;

/** Today ± days, in the database's calendar (the validity cases are relative to the day the seed runs). */
const today = (days: number) => literal(`CURRENT_DATE ${days < 0 ? '-' : '+'} ${Math.abs(days)}`) as unknown as string;

let hashed: string | undefined;

/** The demo catalog, doctor accounts and the clinic's API user. */
export async function seedCatalog(transaction: Tx): Promise<void> {
  const once = { transaction, ignoreDuplicates: true }; // ON CONFLICT DO NOTHING: a second run changes nothing
  await ItemGroup.bulkCreate(
    ['Needs classification', 'Medical Supplies', 'Diagnostics', 'Compounded Medications'].map((name) => ({ name })),
    once,
  );
  await Uom.bulkCreate(
    ['Nos', 'Box', 'Vial', 'Kit'].map((name) => ({ name, mustBeWholeNumber: true })),
    once,
  );
  const item = (
    itemCode: string,
    itemName: string,
    description: string,
    stockUom: string,
    itemGroup: string,
    standardRate: number,
    disabled: boolean,
    is503a: boolean,
  ) => ({ itemCode, itemName, description, stockUom, itemGroup, standardRate, workflowState: 'Approved' as const, published: true, disabled, is503a });
  await Item.bulkCreate(
    [
      item(
        'DEMO-BP-CUFF',
        'Blood Pressure Cuff, Adult',
        '<p>Reusable adult cuff with <strong>latex-free</strong> bladder.</p>',
        'Nos',
        'Diagnostics',
        39.0,
        false,
        false,
      ),
      item('DEMO-N95', 'N95 Respirator Mask (20)', '<p>NIOSH-approved N95 respirators, box of 20.</p>', 'Box', 'Medical Supplies', 25.0, false, false),
      item('DEMO-THERM-IR', 'Infrared Thermometer', '<p>Non-contact forehead thermometer.</p>', 'Nos', 'Diagnostics', 24.0, false, false),
      item('DEMO-ALC-PREP', 'Alcohol Prep Pads (200)', '<p>70% isopropyl alcohol pads.</p>', 'Box', 'Medical Supplies', 5.0, false, false),
      item('DEMO-OTOSCOPE', 'Pocket Otoscope', '<p>LED pocket otoscope (disabled by its vendor).</p>', 'Nos', 'Diagnostics', 59.0, true, false),
      item(
        'DEMO-TESTO-503A',
        'Testosterone Cypionate 200 mg/mL 10 mL (compounded)',
        '<p>503A compounded preparation; prescription required.</p>',
        'Vial',
        'Compounded Medications',
        85.0,
        false,
        true,
      ),
    ],
    once,
  );
  const price = (priceList: string, itemCode: string, rate: number, uom: string, validFrom: string | null = null, validUpto: string | null = null) => ({
    priceList,
    itemCode,
    rate,
    uom,
    validFrom,
    validUpto,
  });
  await ItemPrice.bulkCreate(
    [
      price('Standard Selling', 'DEMO-BP-CUFF', 39.0, 'Nos'),
      price('Wholesale', 'DEMO-BP-CUFF', 36.0, 'Nos'),
      price('Contract Pricing', 'DEMO-BP-CUFF', 34.0, 'Nos', today(-30), today(180)),
      price('Standard Selling', 'DEMO-N95', 25.0, 'Box'),
      price('Standard Selling', 'DEMO-THERM-IR', 24.0, 'Nos'),
      price('Wholesale', 'DEMO-THERM-IR', 22.0, 'Nos'),
      price('Standard Selling', 'DEMO-ALC-PREP', 5.0, 'Box'),
      price('Wholesale', 'DEMO-ALC-PREP', 4.6, 'Box'),
      price('Contract Pricing', 'DEMO-ALC-PREP', 3.9, 'Box', today(-400), today(-10)),
      price('Standard Selling', 'DEMO-OTOSCOPE', 59.0, 'Nos'),
      price('Standard Selling', 'DEMO-TESTO-503A', 85.0, 'Vial'),
      price('Contract Pricing', 'DEMO-TESTO-503A', 79.0, 'Vial'),
      price('Wholesale', 'DEMO-TESTO-503A', 80.0, 'Vial'),
    ],
    once,
  );
  const bin = (itemCode: string, warehouse: string, actualQty: number) => ({ itemCode, warehouse, actualQty });
  await Bin.bulkCreate(
    [
      bin('DEMO-BP-CUFF', 'Main Warehouse - MSE', 60),
      bin('DEMO-BP-CUFF', 'Overflow Warehouse - MSE', 25),
      bin('DEMO-BP-CUFF', 'West Coast Warehouse - MSW', 10),
      bin('DEMO-N95', 'Main Warehouse - MSE', 500),
      bin('DEMO-N95', 'West Coast Warehouse - MSW', 200),
      bin('DEMO-THERM-IR', 'Main Warehouse - MSE', 0),
      bin('DEMO-ALC-PREP', 'Main Warehouse - MSE', 1000),
      bin('DEMO-ALC-PREP', 'Overflow Warehouse - MSE', 300),
      bin('DEMO-OTOSCOPE', 'Main Warehouse - MSE', 15),
      bin('DEMO-TESTO-503A', 'Pharmacy Vault - MSW', 30),
    ],
    once,
  );
  hashed ??= await hashPassword(DEMO_PASSWORD);
  await User.bulkCreate(
    CATALOG_USERS.map((u) => ({ email: u.email, fullName: u.full_name, passwordHash: hashed!, roles: ['Customer' as const], customer: 'CUST-0001' })),
    once,
  );
  await User.update(
    { doctorNpi: DEMO_DOCTOR.npi, doctorDeaNumber: DEMO_DOCTOR.dea, doctorVerifiedAt: fn('now'), doctorVerifiedBy: 'seed' },
    { where: { [Op.and]: [where(fn('lower', col('email')), DEMO_DOCTOR.email.toLowerCase()), { doctorVerifiedAt: null }] }, transaction },
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
