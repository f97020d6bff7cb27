/**
 * Vendor onboarding and administration over /api/method: registration (public), admin approval,
 * suspension, API enabling, credentials and settings, product review and stock update requests (the
 * vendor dashboard, a read over orders, is orders/vendor-dashboard.routes.ts). Each route calls the
 * same service function as the CLI.
 */
import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { permission } from '../auth/policy/index.js';
import { methodRoute } from '../http/method.js';
import { clientAddress, rateLimitPre } from '../http/pre.js';
import { reviewProduct, type ReviewInput } from './product-review.service.js';
import { createStockUpdateRequest, decideStockUpdateRequest, listStockUpdateRequests } from './stock-request.service.js';
import {
  approveVendor,
  generateCredentials,
  getVendor,
  listVendors,
  rejectVendor,
  setApiEnabled,
  setSuspended,
  setWebhook,
  updateVendorSettings,
} from './vendor-profile.service.js';
import {
  credentialsResult,
  registrationResult,
  reviewResult,
  stockDecisionResult,
  stockRequestResult,
  stockRequestsResult,
  vendorResult,
  vendorsResult,
  webhookResult,
} from './vendor.docs.js';
import { registerVendor } from './vendor-registration.service.js';

const vendorArg = Joi.object<{ vendor: string }>({ vendor: Joi.string().max(140).required() });
/** Registrations per address and clock hour, counted before the handler (and its validation) runs. */
const registrationLimit = rateLimitPre({
  bucket: (request) => `register-vendor:${clientAddress(request)}`,
  limit: 20,
  windowSeconds: 3600,
  window: 'fixed',
  message: 'Too many registrations from this address; try again later',
});
/** approve, reject, suspend, enable the API, settings, webhook: the profile's administration */
const PROFILE_ADMIN = permission('Vendor Profile', 'update');

export const vendorRoutes: ServerRoute[] = [
  methodRoute({
    name: 'svc.api.register_vendor',
    docs: { result: registrationResult },
    methods: ['POST'],
    access: 'public',
    tags: ['vendor'],
    description: 'Register as a vendor: creates a Vendor Profile in Pending Approval (and its user) for admin review',
    args: Joi.object<Record<string, unknown>>({
      sales_representative_name: Joi.any(),
      email: Joi.any(),
      password: Joi.any(),
      country: Joi.any(),
      profile_url: Joi.any(),
      vendor_name: Joi.any(),
    }),
    options: { pre: [{ method: registrationLimit }] },
    // a known and an unknown address answer alike (the profile's name is never shown here)
    handler: async ({ args }) => {
      const { email, status } = await registerVendor(args);
      return { email, status };
    },
  }),
  methodRoute({
    name: 'svc.vendors.list_vendors',
    docs: { result: vendorsResult },
    methods: ['GET', 'POST'],
    access: 'authenticated',
    tags: ['vendor'],
    description: 'Vendor Profiles (admins: all; a vendor user: its own)',
    handler: ({ actor }) => listVendors(actor!),
  }),
  methodRoute({
    name: 'svc.vendors.get_vendor',
    docs: { result: vendorResult },
    methods: ['GET', 'POST'],
    access: 'authenticated',
    tags: ['vendor'],
    args: vendorArg,
    description: 'One Vendor Profile (never its secrets)',
    handler: ({ actor, args }) => getVendor(actor!, args.vendor),
  }),
  methodRoute({
    name: 'svc.vendors.approve_vendor',
    docs: { result: vendorResult },
    methods: ['POST'],
    access: PROFILE_ADMIN,
    tags: ['vendor'],
    args: vendorArg,
    description: 'Approve a Vendor Profile (Marketplace Admin)',
    handler: ({ actor, args }) => approveVendor(actor!, args.vendor),
  }),
  methodRoute({
    name: 'svc.vendors.reject_vendor',
    docs: { result: vendorResult },
    methods: ['POST'],
    access: PROFILE_ADMIN,
    tags: ['vendor'],
    args: vendorArg,
    description: 'Reject a vendor registration (Marketplace Admin)',
    handler: ({ actor, args }) => rejectVendor(actor!, args.vendor),
  }),
  methodRoute({
    name: 'svc.vendors.suspend_vendor',
    docs: { result: vendorResult },
    methods: ['POST'],
    access: PROFILE_ADMIN,
    tags: ['vendor'],
    args: Joi.object<{ vendor: string; suspended: boolean }>({ vendor: Joi.string().max(140).required(), suspended: Joi.boolean().default(true) }),
    description: 'Suspend a vendor (suspended: false reinstates it); its tokens stop working at once',
    handler: ({ actor, args }) => setSuspended(actor!, args.vendor, args.suspended),
  }),
  methodRoute({
    name: 'svc.vendors.enable_api',
    docs: { result: vendorResult },
    methods: ['POST'],
    access: PROFILE_ADMIN,
    tags: ['vendor'],
    args: Joi.object<{ vendor: string; enabled: boolean }>({ vendor: Joi.string().max(140).required(), enabled: Joi.boolean().default(true) }),
    description: 'Enable (or, with enabled: false, disable) the vendor interface v1 for a vendor',
    handler: ({ actor, args }) => setApiEnabled(actor!, args.vendor, args.enabled),
  }),
  methodRoute({
    name: 'svc.vendors.generate_credentials',
    docs: { result: credentialsResult },
    methods: ['POST'],
    access: permission('Vendor Profile', 'credentials'),
    tags: ['vendor'],
    args: vendorArg,
    description: 'Generate (or regenerate) client_id and client_secret; the secret is shown once and old tokens die',
    handler: ({ actor, args }) => generateCredentials(actor!, args.vendor),
  }),
  methodRoute({
    name: 'svc.vendors.update_settings',
    docs: { result: vendorResult },
    methods: ['POST'],
    access: PROFILE_ADMIN,
    tags: ['vendor'],
    args: Joi.object<{ vendor: string; auto_approve?: unknown; scope?: unknown; separate_skus?: unknown; sku_prefix?: unknown; vendor_name?: unknown }>({
      vendor: Joi.string().max(140).required(),
      auto_approve: Joi.any(),
      scope: Joi.any(),
      separate_skus: Joi.any(),
      sku_prefix: Joi.any(),
      vendor_name: Joi.any(),
    }),
    description: 'Vendor settings: auto_approve, scope (standard, 503A, 503B), separate_skus with sku_prefix',
    handler: ({ actor, args }) => {
      const { vendor, ...settings } = args;
      return updateVendorSettings(actor!, vendor, settings);
    },
  }),
  methodRoute({
    name: 'svc.vendors.set_webhook',
    docs: { result: webhookResult },
    methods: ['POST'],
    access: PROFILE_ADMIN,
    tags: ['vendor'],
    args: Joi.object<{ vendor: string; webhook_url?: string | null; rotate_secret: boolean }>({
      vendor: Joi.string().max(140).required(),
      webhook_url: Joi.string().max(2000).allow('', null),
      rotate_secret: Joi.boolean().default(false),
    }),
    description: 'Set the Webhook URL of a vendor (checked against private targets); a new secret is returned once',
    handler: ({ actor, args }) => setWebhook(actor!, args.vendor, args.webhook_url || null, { rotateSecret: args.rotate_secret }),
  }),
  methodRoute({
    name: 'svc.vendors.review_product',
    docs: { result: reviewResult },
    methods: ['POST'],
    access: permission('Product Review', 'review'),
    tags: ['vendor'],
    args: Joi.object<ReviewInput>({
      item_code: Joi.string().max(140).required(),
      action: Joi.string().valid('approve', 'reject').required(),
      reason: Joi.string().max(1000).allow(''),
      comment: Joi.string().max(2000).allow(''),
    }),
    description: 'Approve or reject (with a reason) a Pending vendor product (Marketplace Admin only)',
    handler: ({ actor, args }) => reviewProduct(actor!, args),
  }),
  methodRoute({
    name: 'svc.api.create_stock_update_request',
    docs: { result: stockRequestResult },
    methods: ['POST'],
    access: 'authenticated',
    tags: ['vendor'],
    args: Joi.object<Record<string, unknown>>({ item: Joi.any(), action: Joi.any(), warehouse: Joi.any(), quantity: Joi.any(), reason: Joi.any() }),
    description: 'A vendor asks for a stock change (item = SKU, action Add/Remove/Set); it awaits a Marketplace Officer',
    handler: ({ actor, args }) => createStockUpdateRequest(actor!, args),
  }),
  methodRoute({
    name: 'svc.api.list_stock_update_requests',
    docs: { result: stockRequestsResult },
    methods: ['GET', 'POST'],
    access: 'authenticated',
    tags: ['vendor'],
    args: Joi.object<{ status?: string }>({ status: Joi.string().valid('Requested', 'Approved', 'Rejected') }),
    description: 'Stock update requests (a vendor: its own; an officer: all)',
    handler: ({ actor, args }) => listStockUpdateRequests(actor!, args),
  }),
  methodRoute({
    name: 'svc.api.decide_stock_update_request',
    docs: { result: stockDecisionResult },
    methods: ['POST'],
    access: permission('Stock Update Request', 'approve'),
    tags: ['vendor'],
    args: Joi.object<{ name: string; decision: 'approve' | 'reject'; reason?: string }>({
      name: Joi.string().max(40).required(),
      decision: Joi.string().valid('approve', 'reject').required(),
      reason: Joi.string().max(1000).allow(''),
    }),
    description: 'Approve (stock changes with a ledger entry) or reject a stock update request (Marketplace Officer)',
    handler: ({ actor, args }) => decideStockUpdateRequest(actor!, args.name, args.decision, args.reason),
  }),
];
