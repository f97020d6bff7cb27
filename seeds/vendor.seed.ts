/**
 * Demo vendors (issue 4): two approved, API-enabled vendors owning demo items (a standard one
 * without auto-approve and a 503A pharmacy), a suspended vendor, and a vendor that keeps separate
 * SKUs. Their client secrets are fixed demo values (printed by npm start; demo data only).
 */
import { execute, selectRows, type Tx } from '../src/db/sequelize.js';
import { hashClientSecret } from '../src/vendors/vendor-profile.service.js';

export const DEMO_VENDORS = [
  { name: 'VEN-DEMO-MEDI', vendor_name: 'Medisource Supply Co.', email: 'api@medisource.example', scope: 'standard', auto_approve: false, suspended: false, separate_skus: false, sku_prefix: null, client_id: 'svcv_demo_medisource', client_secret: 'svcs_demo_medisource_2026_not_secret' },
  { name: 'VEN-DEMO-RX', vendor_name: 'Reno Compounding Pharmacy', email: 'api@renocompounding.example', scope: '503A', auto_approve: false, suspended: false, separate_skus: false, sku_prefix: null, client_id: 'svcv_demo_renorx', client_secret: 'svcs_demo_renorx_2026_not_secret' },
  { name: 'VEN-DEMO-SUSP', vendor_name: 'Suspended Surgical Ltd.', email: 'api@suspended.example', scope: 'standard', auto_approve: false, suspended: true, separate_skus: false, sku_prefix: null, client_id: 'svcv_demo_suspended', client_secret: 'svcs_demo_suspended_2026_not_secret' },
  { name: 'VEN-DEMO-SEP', vendor_name: 'Separate Sku Diagnostics', email: 'api@sepsku.example', scope: 'standard', auto_approve: true, suspended: false, separate_skus: true, sku_prefix: 'SEP', client_id: 'svcv_demo_sepsku', client_secret: 'svcs_demo_sepsku_2026_not_secret' },
] as const;

const ITEMS = `
INSERT INTO item_groups (name) VALUES ('Needs classification'), ('Medical Supplies'), ('Diagnostics'), ('Compounded Medications') ON CONFLICT DO NOTHING;
INSERT INTO uoms (name, must_be_whole_number) VALUES ('Nos', true), ('Box', true), ('Vial', true), ('Kit', true) ON CONFLICT DO NOTHING;
INSERT INTO items (item_code, item_name, description, stock_uom, item_group, vendor, vendor_sku, vendor_product_id, standard_rate, valuation_rate, workflow_state, published, is_503a) VALUES
  ('MEDI-GLV-NIT-M', 'Nitrile Exam Gloves, Medium (100)', '<p>Powder-free nitrile exam gloves.</p>', 'Box', 'Medical Supplies', 'VEN-DEMO-MEDI', 'MEDI-GLV-NIT-M', 'medi-1001', 12.50, 7.10, 'Approved', true, false),
  ('MEDI-SYR-3ML', 'Luer-Lock Syringe 3 mL (100)', '<p>Sterile single-use syringes.</p>', 'Box', 'Medical Supplies', 'VEN-DEMO-MEDI', 'MEDI-SYR-3ML', 'medi-1002', 18.00, 9.40, 'Approved', true, false),
  ('MEDI-GAUZE-4X4', 'Gauze Sponges 4x4 (200)', '<p>Non-sterile gauze sponges.</p>', 'Box', 'Medical Supplies', 'VEN-DEMO-MEDI', 'MEDI-GAUZE-4X4', 'medi-1003', 9.75, 4.20, 'Pending', false, false),
  ('RX-SEMA-5MG', 'Semaglutide 5 mg/2 mL (compounded)', '<p>503A compounded preparation; prescription required.</p>', 'Vial', 'Compounded Medications', 'VEN-DEMO-RX', 'RX-SEMA-5MG', 'rx-501', 189.00, 95.00, 'Approved', true, true),
  ('RX-B12-30ML', 'Methylcobalamin 1 mg/mL 30 mL (compounded)', '<p>503A compounded preparation; prescription required.</p>', 'Vial', 'Compounded Medications', 'VEN-DEMO-RX', 'RX-B12-30ML', 'rx-502', 48.00, 21.00, 'Approved', true, true),
  ('SEP-STRIP-50', 'Glucose Test Strips (50)', '<p>Test strips for the Sep meter.</p>', 'Box', 'Diagnostics', 'VEN-DEMO-SEP', 'STRIP-50', 'sep-77', 22.00, 11.00, 'Approved', true, false)
  ON CONFLICT DO NOTHING;
UPDATE items SET rx_attributes = '{"ndc": "00000-0000-01", "dosage_form": "injection", "route": "subcutaneous", "is_rx": true, "cold_chain": true}'::jsonb
 WHERE item_code = 'RX-SEMA-5MG' AND rx_attributes IS NULL;
INSERT INTO item_prices (price_list, item_code, rate, uom) VALUES
  ('Standard Selling', 'MEDI-GLV-NIT-M', 12.50, 'Box'), ('Contract Pricing', 'MEDI-GLV-NIT-M', 11.25, 'Box'), ('Wholesale', 'MEDI-GLV-NIT-M', 10.90, 'Box'),
  ('Standard Selling', 'MEDI-SYR-3ML', 18.00, 'Box'), ('Contract Pricing', 'MEDI-SYR-3ML', 16.20, 'Box'), ('Wholesale', 'MEDI-SYR-3ML', 15.80, 'Box'),
  ('Standard Selling', 'RX-SEMA-5MG', 189.00, 'Vial'), ('Contract Pricing', 'RX-SEMA-5MG', 179.00, 'Vial'), ('Wholesale', 'RX-SEMA-5MG', 175.00, 'Vial'),
  ('Standard Selling', 'RX-B12-30ML', 48.00, 'Vial'), ('Contract Pricing', 'RX-B12-30ML', 45.00, 'Vial'), ('Wholesale', 'RX-B12-30ML', 44.00, 'Vial'),
  ('Standard Selling', 'SEP-STRIP-50', 22.00, 'Box'), ('Contract Pricing', 'SEP-STRIP-50', 20.00, 'Box'), ('Wholesale', 'SEP-STRIP-50', 19.50, 'Box')
  ON CONFLICT DO NOTHING;
INSERT INTO bins (item_code, warehouse, actual_qty) VALUES
  ('MEDI-GLV-NIT-M', 'Main Warehouse - MSE', 400), ('MEDI-GLV-NIT-M', 'West Coast Warehouse - MSW', 120), ('MEDI-SYR-3ML', 'Main Warehouse - MSE', 250),
  ('MEDI-GAUZE-4X4', 'Main Warehouse - MSE', 6), ('RX-SEMA-5MG', 'Pharmacy Vault - MSW', 40), ('RX-B12-30ML', 'Pharmacy Vault - MSW', 8),
  ('SEP-STRIP-50', 'Overflow Warehouse - MSE', 300)
  ON CONFLICT DO NOTHING;
UPDATE users SET vendor = 'VEN-DEMO-MEDI' WHERE lower(email) = 'vendor@demo.svc.local' AND vendor IS NULL;
`;

/** Vendor profiles with fixed demo credentials, then their items, prices and stock. */
export async function seedVendors(transaction: Tx): Promise<void> {
  for (const v of DEMO_VENDORS) {
    await execute(
      `INSERT INTO vendor_profiles (name, vendor_name, email, country, status, suspended, api_enabled, auto_approve, scope, separate_skus, sku_prefix, client_id, client_secret_hash, secret_version, approved_at, approved_by, credentials_generated_at)
       VALUES ($1, $2, $3, 'United States', 'Approved', $4, true, $5, $6, $7, $8, $9, $10, 1, now(), 'seed', now())
       ON CONFLICT DO NOTHING`,
      [v.name, v.vendor_name, v.email, v.suspended, v.auto_approve, v.scope, v.separate_skus, v.sku_prefix, v.client_id, hashClientSecret(v.client_secret)],
      { transaction },
    );
  }
  await execute(ITEMS, [], { transaction });
}

export async function vendorBanner(baseUrl: string): Promise<string[]> {
  const rows = await selectRows<{ name: string; webhook_url: string | null; webhook_secret_set: boolean }>(
    `SELECT name, webhook_url, webhook_secret_enc IS NOT NULL AS webhook_secret_set FROM vendor_profiles WHERE name = ANY($1::text[]) ORDER BY name`,
    [DEMO_VENDORS.map((v) => v.name)],
  );
  const hook = new Map(rows.map((r) => [r.name, r]));
  const lines = ['Demo vendors (vendor interface v1: POST ' + baseUrl + '/api/method/svc.api.v1.auth.token {client_id, client_secret}):'];
  for (const v of DEMO_VENDORS) {
    const w = hook.get(v.name);
    const flags = [v.scope, v.suspended ? 'SUSPENDED' : 'approved, API on', v.auto_approve ? 'auto-approve' : 'review required', v.separate_skus ? `separate SKUs (${v.sku_prefix}-)` : ''].filter(Boolean).join(', ');
    lines.push(`  ${v.name.padEnd(14)} ${v.vendor_name} [${flags}]`);
    lines.push(`    client_id ${v.client_id}  client_secret ${v.client_secret}`);
    lines.push(`    webhook: ${w?.webhook_url ? `${w.webhook_url} (secret ${w.webhook_secret_set ? 'set' : 'not set'})` : `not set; run: svc vendor webhook set ${v.name} <url>`}`);
  }
  return lines;
}
