/** Catalog endpoints (customer and partner): thin routes over catalog.service. */
import Joi from 'joi';
import type { ServerRoute } from '@hapi/hapi';
import { methodRoute } from '../http/method.js';
import { catalogRowsResult, orderedWarehousesResult, warehousesResult } from './catalog.docs.js';
import { PAGE_LENGTH_HEADER } from '../shared/page-length.js';
import { itemsInWarehouse, listWarehouses, listWarehousesOrdered, pageOf, searchItems, MAX_PAGE, type Page } from './catalog.service.js';

const page = {
  limit_start: Joi.number().integer().min(0).description('rows to skip (default 0)'),
  limit_page_length: Joi.number().integer().min(0).description(`rows per page (default 100; 0 or above ${MAX_PAGE} = ${MAX_PAGE})`),
  limit: Joi.number().integer().min(0).description('alias of limit_page_length'),
};

/** limit is Frappe's alias of limit_page_length */
type PageArgs = Page & { limit?: number };

const tags = ['catalog'];

export const catalogRoutes: ServerRoute[] = [
  methodRoute({
    name: 'svc.catalog.list_warehouses',
    methods: ['GET', 'POST'],
    access: 'authenticated',
    tags,
    description: 'Warehouses (name, warehouse_name, company)',
    docs: { result: warehousesResult },
    args: Joi.object({}).unknown(true),
    handler: ({ actor }) => listWarehouses(actor!),
  }),
  methodRoute({
    name: 'svc.catalog.list_warehouses_ordered',
    methods: ['GET', 'POST'],
    access: 'authenticated',
    tags,
    description: 'Warehouses by configured priority, preferred first (name, label)',
    docs: { result: orderedWarehousesResult },
    args: Joi.object({}).unknown(true),
    handler: ({ actor }) => listWarehousesOrdered(actor!),
  }),
  methodRoute({
    name: 'svc.catalog.items_in_warehouse',
    methods: ['GET', 'POST'],
    access: 'authenticated',
    tags,
    description: "Catalog item rows with available stock in one warehouse, priced with the caller's list",
    docs: { result: catalogRowsResult },
    args: Joi.object<{ warehouse: string; price_list?: string } & PageArgs>({
      warehouse: Joi.string().max(140).required(),
      price_list: Joi.string().max(140).allow(''),
      ...page,
    }),
    handler: async ({ actor, args, h }) => {
      const input = { ...args, limit_page_length: args.limit_page_length ?? args.limit };
      return h.response({ message: await itemsInWarehouse(actor!, input) }).header(PAGE_LENGTH_HEADER, String(pageOf(input).limit));
    },
  }),
  methodRoute({
    name: 'svc.catalog.search_items',
    methods: ['GET', 'POST'],
    access: 'authenticated',
    tags,
    description: 'Partial match on item code, item name and description; rows with available stock only',
    docs: { result: catalogRowsResult },
    args: Joi.object<{ query: string; warehouse?: string; price_list?: string } & PageArgs>({
      query: Joi.string().max(140).required(),
      warehouse: Joi.string().max(140).allow(''),
      price_list: Joi.string().max(140).allow(''),
      ...page,
    }),
    handler: async ({ actor, args, h }) => {
      const input = { ...args, warehouse: args.warehouse || undefined, limit_page_length: args.limit_page_length ?? args.limit };
      return h.response({ message: await searchItems(actor!, input) }).header(PAGE_LENGTH_HEADER, String(pageOf(input).limit));
    },
  }),
];
