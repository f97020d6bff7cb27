/** Generic /api/resource routes and frappe.client.* methods over the document-type registry. */
import type { Request, RouteOptions, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { countDocs, docType, getDoc, listDocs, listPage, requireHandler, type Doc, type ListParams } from '../shared/doctype.js';
import { PAGE_LENGTH_HEADER } from '../shared/page-length.js';
import { InputError } from '../shared/errors.js';
import { actorOf } from './plugins/auth.js';
import { emptyResult, jsonParam, methodRoute } from './method.js';
import {
  countMessage,
  documentMessage,
  documentResult,
  inputSchemas,
  valueMessage,
  listMessage,
  listParameters,
  listResult,
  updateSchema,
} from './resource.docs.js';

function bodyOf(request: Request): Doc {
  const payload = request.payload as unknown;
  if (payload == null || (Buffer.isBuffer(payload) && payload.length === 0)) return {};
  if (typeof payload !== 'object' || Array.isArray(payload)) throw new InputError('The body must be a JSON object');
  const body = payload as Doc;
  // Frappe form posts put the document in a `data` field as JSON text.
  if (typeof body.data === 'string' && Object.keys(body).length <= 2) return jsonParam<Doc>(body.data, 'data') ?? {};
  return body;
}

/** Frappe's get_value: fieldname and filters are JSON text only when they look like JSON; else a plain name. */
function looseJson(value: unknown, name: string): unknown {
  return typeof value === 'string' && !/^\s*[[{"]/.test(value) ? value : jsonParam<unknown>(value, name);
}

const params = { doctype: Joi.string().max(140).required(), name: Joi.string().max(255) };
const LIMITS = { doctype: 140, name: 255 };

/**
 * The route's path parameters (`keys` of `params`) checked as their Joi schema checks them, without
 * Joi's walk on the usual request (it was a measured share of an order's create and submit): when
 * every one is a non-empty string within its length, the parameters are left as they are, which is
 * what the schema would answer; anything else goes through the schema itself, so a refusal is the
 * same 400. The schema stays the documented one (hapi-swagger reads its own `validate`).
 */
function pathParams(keys: (keyof typeof params)[]): Pick<RouteOptions, 'validate' | 'plugins'> {
  const schema = Joi.object(Object.fromEntries(keys.map((k) => [k, params[k]])));
  const check = (value: Record<string, unknown>, options: Joi.ValidationOptions) => {
    let plain = Object.keys(value).length === keys.length;
    for (const k of keys) {
      const v = value[k];
      if (typeof v !== 'string' || v.length === 0 || v.length > LIMITS[k]) plain = false;
    }
    return plain ? undefined : schema.validateAsync(value, options);
  };
  return { validate: { params: check as never }, plugins: { 'hapi-swagger': { validate: { params: schema } } } };
}
/** frappe.client.* arguments naming one document, or a document type and its list parameters */
type DocRef = { doctype: string; name: string };
type ListArgs = ListParams & { doctype: string; debug?: unknown; cache?: unknown; distinct?: unknown };
const docs = { tags: ['api', 'resource'] };

export const resourceRoutes: ServerRoute[] = [
  {
    method: 'GET',
    path: '/api/resource/{doctype}',
    options: {
      ...docs,
      description: 'List documents (Frappe list parameters)',
      app: { access: 'authenticated', docs: { query: listParameters, result: listResult } },
      ...pathParams(['doctype']),
      handler: async (request, h) => {
        const page = await listPage(actorOf(request), docType(String(request.params.doctype)), request.query);
        return h.response({ data: page.rows }).header(PAGE_LENGTH_HEADER, String(page.pageLength));
      },
    },
  },
  {
    method: 'GET',
    path: '/api/resource/{doctype}/{name}',
    options: {
      ...docs,
      description: 'Get one document with its child rows',
      app: { access: 'authenticated', docs: { result: documentResult } },
      ...pathParams(['doctype', 'name']),
      handler: async (request) => ({ data: await getDoc(actorOf(request), docType(String(request.params.doctype)), String(request.params.name)) }),
    },
  },
  {
    method: 'POST',
    path: '/api/resource/{doctype}',
    options: {
      ...docs,
      description: 'Create a document (answers 200 with the document, as Frappe does)',
      app: { access: 'authenticated', docs: { payload: inputSchemas, result: documentResult } },
      ...pathParams(['doctype']),
      handler: async (request) => {
        const def = docType(String(request.params.doctype));
        return { data: await requireHandler(def, 'create')(actorOf(request), bodyOf(request)) };
      },
    },
  },
  {
    method: 'PUT',
    path: '/api/resource/{doctype}/{name}',
    options: {
      ...docs,
      description: 'Update a document; docstatus 1 submits, 2 cancels',
      app: { access: 'authenticated', docs: { payload: updateSchema, result: documentResult } },
      ...pathParams(['doctype', 'name']),
      handler: async (request) => {
        const def = docType(String(request.params.doctype));
        return { data: await requireHandler(def, 'update')(actorOf(request), String(request.params.name), bodyOf(request)) };
      },
    },
  },
  {
    method: 'DELETE',
    path: '/api/resource/{doctype}/{name}',
    options: {
      ...docs,
      description: 'Delete a draft document (202 {"message":"ok"})',
      app: { access: 'authenticated', docs: { status: 202, result: Joi.object({ message: Joi.string().valid('ok') }).label('Deleted') } },
      ...pathParams(['doctype', 'name']),
      handler: async (request, h) => {
        const def = docType(String(request.params.doctype));
        await requireHandler(def, 'remove')(actorOf(request), String(request.params.name));
        return h.response({ message: 'ok' }).code(202);
      },
    },
  },
  methodRoute({
    name: 'frappe.client.get_list',
    access: 'authenticated',
    description: 'List documents (same parameters as GET /api/resource)',
    docs: { query: { doctype: Joi.string().required(), ...listParameters }, result: listMessage },
    args: Joi.object<ListArgs>({ doctype: Joi.string().required() }).unknown(true),
    handler: async ({ args, actor, h }) => {
      const page = await listPage(actor!, docType(args.doctype), args);
      return h.response({ message: page.rows }).header(PAGE_LENGTH_HEADER, String(page.pageLength));
    },
  }),
  methodRoute({
    name: 'frappe.client.get_count',
    access: 'authenticated',
    description: 'Count documents matching filters',
    docs: { result: countMessage },
    args: Joi.object<ListArgs>({
      doctype: Joi.string().required(),
      filters: Joi.any(),
      or_filters: Joi.any(),
      debug: Joi.any(),
      cache: Joi.any(),
      distinct: Joi.any(),
    }),
    handler: async ({ args, actor }) => countDocs(actor!, docType(args.doctype), args),
  }),
  methodRoute({
    name: 'frappe.client.get',
    access: 'authenticated',
    description: 'Get one document',
    docs: { result: documentMessage },
    args: Joi.object<DocRef>({ doctype: Joi.string().required(), name: Joi.string().required() }).unknown(true),
    handler: async ({ args, actor }) => getDoc(actor!, docType(args.doctype), args.name),
  }),
  methodRoute({
    name: 'frappe.client.get_value',
    access: 'authenticated',
    description: 'Get field values of the first document matching filters',
    docs: { result: valueMessage },
    args: Joi.object<{ doctype: string; fieldname: unknown; filters?: unknown; as_dict?: unknown; parent?: unknown; debug?: unknown }>({
      doctype: Joi.string().required(),
      fieldname: Joi.any().required(),
      filters: Joi.any(),
      as_dict: Joi.any(),
      parent: Joi.any(),
      debug: Joi.any(),
    }),
    handler: async ({ args, actor }) => {
      const def = docType(args.doctype);
      const fieldname = looseJson(args.fieldname, 'fieldname');
      const fields = Array.isArray(fieldname) ? fieldname.map(String) : [String(fieldname)];
      let filters = looseJson(args.filters, 'filters');
      if (typeof filters === 'string') filters = { name: filters };
      const [row] = (await listDocs(actor!, def, { fields, filters, limit_page_length: 1 })) as Doc[];
      return row ?? {};
    },
  }),
  methodRoute({
    name: 'frappe.client.submit',
    methods: ['POST'],
    access: 'authenticated',
    description: 'Submit a document ({doc: {doctype, name}})',
    docs: { result: documentMessage },
    args: Joi.object<{ doc: Doc | string }>({
      doc: Joi.alternatives(Joi.object({ doctype: Joi.string().required(), name: Joi.string().required() }).unknown(true), Joi.string()).required(),
    }),
    handler: async ({ args, actor }) => {
      const doc = jsonParam<Doc>(args.doc, 'doc')!;
      if (!doc?.doctype || !doc?.name) throw new InputError('doc must carry doctype and name');
      return requireHandler(docType(String(doc.doctype)), 'update')(actor!, String(doc.name), { docstatus: 1 });
    },
  }),
  methodRoute({
    name: 'frappe.client.cancel',
    methods: ['POST'],
    access: 'authenticated',
    description: 'Cancel a submitted document',
    docs: { result: emptyResult },
    args: Joi.object<DocRef>({ doctype: Joi.string().required(), name: Joi.string().required() }),
    handler: async ({ args, actor }) => {
      await requireHandler(docType(args.doctype), 'update')(actor!, args.name, { docstatus: 2 });
      return null;
    },
  }),
  methodRoute({
    name: 'frappe.client.delete',
    methods: ['POST', 'DELETE'],
    access: 'authenticated',
    description: 'Delete a draft document',
    docs: { result: emptyResult },
    args: Joi.object<DocRef>({ doctype: Joi.string().required(), name: Joi.string().required() }),
    handler: async ({ args, actor }) => {
      await requireHandler(docType(args.doctype), 'remove')(actor!, args.name);
      return null;
    },
  }),
];
