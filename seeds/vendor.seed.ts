/**
 * Demo vendors (issue 4): two approved, API-enabled vendors owning demo items (a standard one
 * without auto-approve and a 503A pharmacy), a suspended vendor, and a vendor that keeps separate
 * SKUs. Their client secrets are fixed demo values (printed by npm start; demo data only).
 */
import { Op, col, fn, where } from 'sequelize';
import type { Tx } from '../src/db/sequelize.js';
import { Bin } from '../src/catalog/bin.model.js';
import { ItemGroup } from '../src/catalog/item-group.model.js';
import { ItemPrice } from '../src/catalog/item-price.model.js';
import { Item } from '../src/catalog/item.model.js';
import { Uom } from '../src/catalog/uom.model.js';
import { User } from '../src/users/user.model.js';
import { VendorProfile } from '../src/vendors/vendor-profile.model.js';
import { hashClientSecret } from '../src/vendors/vendor-profile.service.js';

export const DEMO_VENDORS = [
  {
    name: 'VEN-DEMO-MEDI',
    vendor_name: 'Medisource Supply Co.',
    email: 'api@medisource.example',
    scope: 'standard',
    auto_approve: false,
    suspended: false,
    separate_skus: false,
    sku_prefix: null,
    client_id: 'svcv_demo_medisource',
    client_secret: 'svcs_demo_medisource_2026_not_secret',
  },
  {
    name: 'VEN-DEMO-RX',
    vendor_name: 'Reno Compounding Pharmacy',
    email: 'api@renocompounding.example',
    scope: '503A',
    auto_approve: false,
    suspended: false,
    separate_skus: false,
    sku_prefix: null,
    client_id: 'svcv_demo_renorx',
    client_secret: 'svcs_demo_renorx_2026_not_secret',
  },
  {
    name: 'VEN-DEMO-SUSP',
    vendor_name: 'Suspended Surgical Ltd.',
    email: 'api@suspended.example',
    scope: 'standard',
    auto_approve: false,
    suspended: true,
    separate_skus: false,
    sku_prefix: null,
    client_id: 'svcv_demo_suspended',
    client_secret: 'svcs_demo_suspended_2026_not_secret',
  },
  {
    name: 'VEN-DEMO-SEP',
    vendor_name: 'Separate Sku Diagnostics',
    email: 'api@sepsku.example',
    scope: 'standard',
    auto_approve: true,
    suspended: false,
    separate_skus: true,
    sku_prefix: 'SEP',
    client_id: 'svcv_demo_sepsku',
    client_secret: 'svcs_demo_sepsku_2026_not_secret',
  },
] as const;

/** Vendor profiles with fixed demo credentials, then their items, prices and stock. */
export async function seedVendors(transaction: Tx): Promise<void> {
  const once = { transaction, ignoreDuplicates: true }; // ON CONFLICT DO NOTHING: a second run changes nothing
  const now = fn('now') as unknown as Date;
  await VendorProfile.bulkCreate(
    DEMO_VENDORS.map((v) => ({
      name: v.name,
      vendorName: v.vendor_name,
      email: v.email,
      country: 'United States',
      status: 'Approved' as const,
      suspended: v.suspended,
      apiEnabled: true,
      autoApprove: v.auto_approve,
      scope: v.scope,
      separateSkus: v.separate_skus,
      skuPrefix: v.sku_prefix,
      clientId: v.client_id,
      clientSecretHash: hashClientSecret(v.client_secret),
      secretVersion: 1,
      approvedAt: now,
      approvedBy: 'seed',
      credentialsGeneratedAt: now,
    })),
    once,
  );
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
    vendor: string,
    vendorSku: string,
    vendorProductId: string,
    standardRate: number,
    valuationRate: number,
    workflowState: 'Approved' | 'Pending',
    published: boolean,
    is503a: boolean,
  ) => ({
    itemCode,
    itemName,
    description,
    stockUom,
    itemGroup,
    vendor,
    vendorSku,
    vendorProductId,
    standardRate,
    valuationRate,
    workflowState,
    published,
    is503a,
  });
  await Item.bulkCreate(
    [
      item(
        'MEDI-GLV-NIT-M',
        'Nitrile Exam Gloves, Medium (100)',
        '<p>Powder-free nitrile exam gloves.</p>',
        'Box',
        'Medical Supplies',
        'VEN-DEMO-MEDI',
        'MEDI-GLV-NIT-M',
        'medi-1001',
        12.5,
        7.1,
        'Approved',
        true,
        false,
      ),
      item(
        'MEDI-SYR-3ML',
        'Luer-Lock Syringe 3 mL (100)',
        '<p>Sterile single-use syringes.</p>',
        'Box',
        'Medical Supplies',
        'VEN-DEMO-MEDI',
        'MEDI-SYR-3ML',
        'medi-1002',
        18.0,
        9.4,
        'Approved',
        true,
        false,
      ),
      item(
        'MEDI-GAUZE-4X4',
        'Gauze Sponges 4x4 (200)',
        '<p>Non-sterile gauze sponges.</p>',
        'Box',
        'Medical Supplies',
        'VEN-DEMO-MEDI',
        'MEDI-GAUZE-4X4',
        'medi-1003',
        9.75,
        4.2,
        'Pending',
        false,
        false,
      ),
      item(
        'RX-SEMA-5MG',
        'Semaglutide 5 mg/2 mL (compounded)',
        '<p>503A compounded preparation; prescription required.</p>',
        'Vial',
        'Compounded Medications',
        'VEN-DEMO-RX',
        'RX-SEMA-5MG',
        'rx-501',
        189.0,
        95.0,
        'Approved',
        true,
        true,
      ),
      item(
        'RX-B12-30ML',
        'Methylcobalamin 1 mg/mL 30 mL (compounded)',
        '<p>503A compounded preparation; prescription required.</p>',
        'Vial',
        'Compounded Medications',
        'VEN-DEMO-RX',
        'RX-B12-30ML',
        'rx-502',
        48.0,
        21.0,
        'Approved',
        true,
        true,
      ),
      item(
        'SEP-STRIP-50',
        'Glucose Test Strips (50)',
        '<p>Test strips for the Sep meter.</p>',
        'Box',
        'Diagnostics',
        'VEN-DEMO-SEP',
        'STRIP-50',
        'sep-77',
        22.0,
        11.0,
        'Approved',
        true,
        false,
      ),
    ],
    once,
  );
  await Item.update(
    { rxAttributes: { ndc: '00000-0000-01', dosage_form: 'injection', route: 'subcutaneous', is_rx: true, cold_chain: true } },
    { where: { itemCode: 'RX-SEMA-5MG', rxAttributes: null }, transaction },
  );
  const prices = (itemCode: string, uom: string, standard: number, contract: number, wholesale: number) => [
    { priceList: 'Standard Selling', itemCode, rate: standard, uom },
    { priceList: 'Contract Pricing', itemCode, rate: contract, uom },
    { priceList: 'Wholesale', itemCode, rate: wholesale, uom },
  ];
  await ItemPrice.bulkCreate(
    [
      ...prices('MEDI-GLV-NIT-M', 'Box', 12.5, 11.25, 10.9),
      ...prices('MEDI-SYR-3ML', 'Box', 18.0, 16.2, 15.8),
      ...prices('RX-SEMA-5MG', 'Vial', 189.0, 179.0, 175.0),
      ...prices('RX-B12-30ML', 'Vial', 48.0, 45.0, 44.0),
      ...prices('SEP-STRIP-50', 'Box', 22.0, 20.0, 19.5),
    ],
    once,
  );
  const bin = (itemCode: string, warehouse: string, actualQty: number) => ({ itemCode, warehouse, actualQty });
  await Bin.bulkCreate(
    [
      bin('MEDI-GLV-NIT-M', 'Main Warehouse - MSE', 400),
      bin('MEDI-GLV-NIT-M', 'West Coast Warehouse - MSW', 120),
      bin('MEDI-SYR-3ML', 'Main Warehouse - MSE', 250),
      bin('MEDI-GAUZE-4X4', 'Main Warehouse - MSE', 6),
      bin('RX-SEMA-5MG', 'Pharmacy Vault - MSW', 40),
      bin('RX-B12-30ML', 'Pharmacy Vault - MSW', 8),
      bin('SEP-STRIP-50', 'Overflow Warehouse - MSE', 300),
    ],
    once,
  );
  await User.update(
    { vendor: 'VEN-DEMO-MEDI' },
    { where: { [Op.and]: [where(fn('lower', col('email')), 'vendor@demo.svc.local'), { vendor: null }] }, transaction },
  );
}

export async function vendorBanner(baseUrl: string): Promise<string[]> {
  const rows = await VendorProfile.scope('withSecrets').findAll({
    attributes: ['name', 'webhookUrl', 'webhookSecretEnc'],
    where: { name: DEMO_VENDORS.map((v) => v.name) },
    order: [['name', 'ASC']],
  });
  const hook = new Map(rows.map((r) => [r.name, { webhook_url: r.webhookUrl, webhook_secret_set: r.webhookSecretEnc !== null }]));
  const lines = ['Demo vendors (vendor interface v1: POST ' + baseUrl + '/api/method/svc.api.v1.auth.token {client_id, client_secret}):'];
  for (const v of DEMO_VENDORS) {
    const w = hook.get(v.name);
    const flags = [
      v.scope,
      v.suspended ? 'SUSPENDED' : 'approved, API on',
      v.auto_approve ? 'auto-approve' : 'review required',
      v.separate_skus ? `separate SKUs (${v.sku_prefix}-)` : '',
    ]
      .filter(Boolean)
      .join(', ');
    lines.push(`  ${v.name.padEnd(14)} ${v.vendor_name} [${flags}]`);
    lines.push(`    client_id ${v.client_id}  client_secret ${v.client_secret}`);
    lines.push(
      `    webhook: ${w?.webhook_url ? `${w.webhook_url} (secret ${w.webhook_secret_set ? 'set' : 'not set'})` : `not set; run: svc vendor webhook set ${v.name} <url>`}`,
    );
  }
  return lines;
}
