/** Order-related methods (the documents themselves are served by /api/resource through orders.doctype.ts). */
import Joi from 'joi';
import type { ServerRoute } from '@hapi/hapi';
import { permission } from '../auth/policy/index.js';
import { methodRoute } from '../http/method.js';
import { aggregateShipments } from './shipments.service.js';
import { placeOrder, type PlaceOrderInput } from './place-order.service.js';
import { doctorStatus, verifyDoctor, type VerifyDoctorInput } from './doctor.service.js';
import { doctorStatusResult, placeOrderResult, shipmentsResult } from './orders.docs.js';
import { NotFoundError } from '../shared/errors.js';

export const ordersRoutes: ServerRoute[] = [
  methodRoute({
    name: 'svc.fulfillment_router.aggregate_shipments',
    methods: ['POST', 'GET'],
    access: 'authenticated',
    tags: ['orders'],
    description: 'Aggregated shipment row of each vendor or partner with a shipment on the order',
    docs: { result: shipmentsResult },
    args: Joi.object<{ sales_order: string }>({ sales_order: Joi.string().max(140).required() }),
    handler: ({ actor, args }) => aggregateShipments(actor!, args.sales_order),
  }),
  methodRoute({
    name: 'svc.orders.place_order',
    methods: ['POST'],
    access: 'authenticated',
    tags: ['orders'],
    description: 'Simplified placement: creates and submits a one-line order; answers { status: "success", order_id } (also inside message)',
    docs: { result: placeOrderResult },
    args: Joi.object<PlaceOrderInput>({
      customer_id: Joi.string().max(140).allow(''),
      product_id: Joi.string().max(140).required(),
      quantity: Joi.number().integer().positive().required(),
    }).unknown(true),
    handler: async ({ actor, args, h }) => {
      const result = await placeOrder(actor!, args);
      // The documented answer is the bare object; Frappe clients read `message`: both are present.
      return h.response({ ...result, message: result });
    },
  }),
  methodRoute({
    name: 'svc.doctors.verify',
    methods: ['POST'],
    access: permission('Doctor Verification', 'update'),
    tags: ['orders', '503A'],
    description: 'Verify a doctor account once (NPI and DEA certificate) so it can place 503A orders (admin)',
    docs: { result: doctorStatusResult },
    args: Joi.object<VerifyDoctorInput>({
      email: Joi.string().email({ tlds: false }).required(),
      npi: Joi.string().required(),
      dea: Joi.string().required(),
      dea_license_file: Joi.string().max(500),
    }),
    handler: ({ actor, args }) => verifyDoctor(actor!, args),
  }),
  methodRoute({
    name: 'svc.doctors.status',
    methods: ['GET'],
    access: permission('Doctor Verification', 'read'),
    tags: ['orders', '503A'],
    description: 'Doctor verification state of a user account (admin)',
    docs: { result: doctorStatusResult },
    args: Joi.object<{ email: string }>({ email: Joi.string().email({ tlds: false }).required() }),
    handler: async ({ actor, args }) => {
      const status = await doctorStatus(actor!, args.email);
      if (!status) throw new NotFoundError(`User ${args.email} not found`);
      return status;
    },
  }),
];
