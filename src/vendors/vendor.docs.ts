/** The documented results of the vendor onboarding and administration methods; read when the OpenAPI document is built. */
import Joi from 'joi';
import { messageOf } from '../shared/result-docs.js';
import { VENDOR_SCOPES, VENDOR_STATUSES } from './vendor-profile.model.js';

const time = () => Joi.string().allow(null);

/** A Vendor Profile as the API shows it (vendor-profile.service.ts PUBLIC): never its secrets. */
export const vendorProfile = Joi.object({
  name: Joi.string().description('Vendor Profile id'),
  vendor_name: Joi.string(),
  email: Joi.string().allow(null),
  country: Joi.string().allow(null),
  profile_url: Joi.string().allow(null),
  phone: Joi.string().allow(null),
  status: Joi.string()
    .valid(...VENDOR_STATUSES)
    .label('VendorStatus'),
  suspended: Joi.boolean(),
  api_enabled: Joi.boolean(),
  auto_approve: Joi.boolean(),
  scope: Joi.string()
    .valid(...VENDOR_SCOPES)
    .description('503A and 503B are pharmacy vendors')
    .label('VendorScope'),
  webhook_url: Joi.string().allow(null),
  webhook_secret_set: Joi.boolean().description('A webhook secret is stored (the secret itself is never shown again)'),
  separate_skus: Joi.boolean(),
  sku_prefix: Joi.string().allow(null),
  client_id: Joi.string().allow(null).description('The public half of the v1 credentials'),
  // open: what the registration form carried beside the profile's own fields
  details: Joi.object().unknown(true).allow(null).description('Further registration details').label('VendorDetails'),
  approved_at: time(),
  approved_by: Joi.string().allow(null),
  credentials_generated_at: time(),
  created_at: Joi.string(),
  updated_at: Joi.string(),
}).label('VendorProfileView');

export const vendorResult = messageOf(vendorProfile, 'VendorProfileResult');
export const vendorsResult = messageOf(Joi.array().items(vendorProfile).label('VendorProfiles'), 'VendorProfilesResult');

export const registrationResult = messageOf(
  Joi.object({
    email: Joi.string(),
    status: Joi.string().valid('Pending Approval').description('The same answer whether or not the address had an account'),
  }).label('VendorRegistration'),
  'RegisterVendorResult',
);

export const credentialsResult = messageOf(
  Joi.object({
    vendor: Joi.string(),
    client_id: Joi.string().description('Public, with the fixed vendor prefix'),
    client_secret: Joi.string().description('Shown once'),
  }).label('VendorCredentials'),
  'GenerateCredentialsResult',
);

export const webhookResult = messageOf(
  Joi.object({
    vendor: Joi.string(),
    webhook_url: Joi.string().allow(null),
    webhook_secret: Joi.string().description('Only when a new secret was made: shown once'),
  }).label('VendorWebhook'),
  'SetWebhookResult',
);

export const reviewResult = messageOf(
  Joi.object({
    item_code: Joi.string(),
    sku: Joi.string().description("The vendor's sku (the item code when SKUs are not kept separate)"),
    workflow_state: Joi.string().valid('Approved', 'Rejected'),
    previous_state: Joi.string(),
    published: Joi.boolean(),
    status: Joi.string().description('Pending, Approved, Rejected, or Disabled (an Approved product not on the storefront)'),
    rejection_reason: Joi.string().allow(null).description('Reason and comment; set only when Rejected'),
  }).label('ProductReview'),
  'ReviewProductResult',
);

const stockRequest = Joi.object({
  name: Joi.string(),
  vendor: Joi.string().allow(null),
  item: Joi.string().description('The item code'),
  action: Joi.string().valid('Add', 'Remove', 'Set'),
  warehouse: Joi.string(),
  quantity: Joi.number(),
  reason: Joi.string().allow(null, ''),
  status: Joi.string().valid('Requested', 'Approved', 'Rejected'),
  requested_by: Joi.string().allow(null),
  decided_by: Joi.string().allow(null),
  decided_at: time(),
  decision_reason: Joi.string().allow(null, ''),
  created_at: Joi.string(),
}).label('StockUpdateRequestView');

export const stockRequestResult = messageOf(stockRequest, 'StockUpdateRequestResult');
export const stockRequestsResult = messageOf(Joi.array().items(stockRequest).label('StockUpdateRequests'), 'StockUpdateRequestsResult');
export const stockDecisionResult = messageOf(
  stockRequest
    .keys({
      stock: Joi.object({
        item_code: Joi.string(),
        warehouse: Joi.string(),
        actual_qty: Joi.number(),
        reserved_qty: Joi.number(),
        available_qty: Joi.number(),
        previous_qty: Joi.number(),
      })
        .description('The stock after an approval')
        .label('StockChange'),
    })
    .label('DecidedStockUpdateRequest'),
  'DecideStockUpdateRequestResult',
);
