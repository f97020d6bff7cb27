/**
 * What a vendor maintains itself through v1: its contact details (sync.vendor_details) and its own
 * warehouses (warehouse.create). Both are idempotent by nature and accept Idempotency-Key.
 */
import Joi from 'joi';
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { literal, type Attributes } from 'sequelize';
import { db, withTransaction, type Tx } from '../db/sequelize.js';
import { columnsOf } from '../db/sql-names.js';
import { createOwnWarehouse } from '../catalog/warehouse.service.js';
import { ensureCompany } from '../org/org.service.js';
import { VendorProfile } from './vendor-profile.model.js';
import { ConflictError, InputError } from '../shared/errors.js';
import { getVendor } from './vendor-profile.service.js';

interface DetailsInput {
  vendor_name?: string;
  email?: string;
  phone?: string;
  country?: string;
  profile_url?: string;
  address?: Record<string, string>;
  contact_name?: string;
  support_email?: string;
}

const detailsSchema = Joi.object<DetailsInput>({
  vendor_name: Joi.string().trim().min(1).max(140),
  email: Joi.string().trim().email({ tlds: false }).max(255),
  phone: Joi.string().trim().max(40).allow(''),
  country: Joi.string().trim().max(100),
  profile_url: Joi.string()
    .trim()
    .uri({ scheme: ['http', 'https'] })
    .max(500)
    .allow(''),
  address: Joi.object({
    address_line1: Joi.string().max(200).allow(''),
    address_line2: Joi.string().max(200).allow(''),
    city: Joi.string().max(100).allow(''),
    state: Joi.string().max(100).allow(''),
    pincode: Joi.string().max(20).allow(''),
    country: Joi.string().max(100).allow(''),
  }),
  contact_name: Joi.string().trim().max(140).allow(''),
  support_email: Joi.string().trim().email({ tlds: false }).max(255).allow(''),
}).min(1);

/** sync.vendor_details: updates the caller's own contact details; answers the profile (no secrets). */
export async function updateVendorDetails(actor: Actor, input: Record<string, unknown>, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>> {
  authorize(actor, 'details', 'Vendor Profile');
  const validated = detailsSchema.validate(input ?? {}, { abortEarly: true });
  if (validated.error) throw new InputError(validated.error.details[0].message.replace(/"/g, ''));
  const { address, contact_name, support_email, ...columns } = validated.value;
  const extra = Object.fromEntries(Object.entries({ address, contact_name, support_email }).filter(([, v]) => v !== undefined));
  const blankAsNull = (v: string | undefined) => (v === '' ? null : v);
  const change: Partial<Attributes<VendorProfile>> = {
    vendorName: columns.vendor_name,
    email: blankAsNull(columns.email),
    phone: blankAsNull(columns.phone),
    country: blankAsNull(columns.country),
    profileUrl: blankAsNull(columns.profile_url),
  };
  // the extra fields merge into details (jsonb ||) in the same statement, so concurrent updates cannot lose one
  const details = literal(`${columnsOf(VendorProfile).details} || ${db().escape(JSON.stringify(extra))}::jsonb`) as unknown as Record<string, unknown>;
  return withTransaction(opts, async (transaction) => {
    await VendorProfile.update(
      { ...Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)), details },
      { where: { name: actor.vendor! }, transaction },
    );
    const profile = await getVendor(actor, actor.vendor!, { transaction });
    const { client_id: _c, webhook_secret_set: _w, ...visible } = profile;
    return { ...visible, webhook_secret_set: profile.webhook_secret_set };
  });
}

const warehouseSchema = Joi.object<{ warehouse_name: string; label?: string }>({
  warehouse_name: Joi.string().trim().min(1).max(100).required(),
  label: Joi.string().trim().max(140).allow(''),
});

/**
 * Warehouse creation: a vendor-owned warehouse named "<warehouse_name> - <vendor>" under a company
 * named after the vendor. Re-sending the same name answers the existing warehouse (created: false).
 */
export async function createVendorWarehouse(actor: Actor, input: Record<string, unknown>, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>> {
  authorize(actor, 'write', 'Vendor Sync');
  const validated = warehouseSchema.validate(input ?? {}, { abortEarly: true, stripUnknown: true });
  if (validated.error) throw new InputError(validated.error.details[0].message.replace(/"/g, ''));
  const value = validated.value;
  const vendor = actor.vendor!;
  const name = `${value.warehouse_name} - ${vendor}`;
  return withTransaction(opts, async (transaction) => {
    const profile = await VendorProfile.findByPk(vendor, { attributes: ['vendorName'], transaction });
    const company = `${profile!.vendorName} (${vendor})`;
    await ensureCompany(company, vendor, { transaction });
    const { row, created } = await createOwnWarehouse(
      { name, warehouseName: value.warehouse_name, company, label: value.label || null, vendor, priority: 500 },
      { transaction },
    );
    if (row.vendor !== vendor) throw new ConflictError(`Warehouse ${name} already exists`);
    return { name: row.name, warehouse: row.name, warehouse_name: row.warehouse_name, company: row.company, label: row.label, created };
  });
}
