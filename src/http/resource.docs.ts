/**
 * The documentation of /api/resource and frappe.client.* (issue 26 §5): Frappe's list parameters and
 * each DocType's document and create body, from the DocType registry. Read when the server is built
 * (http/openapi.ts); nothing here runs on a request.
 */
import Joi from 'joi';
import { docTypes } from '../shared/doctype.js';
import { PAGE_LENGTH_HEADER } from '../shared/page-length.js';

const FILTER_HELP =
  'JSON text: {"field": value} or [["field", "operator", value], …]; operators =, !=, <>, <, >, <=, >=, like, not like, in, not in, between, is ("set"/"not set")';

/** Frappe's list parameters (shared/doctype.ts listPage), as query strings. */
export const listParameters = {
  fields: Joi.string()
    .description('JSON list of the fields of each row (default: the DocType\'s list fields, e.g. ["name"]); "*" for all readable fields')
    .example('["name","customer","status","grand_total"]'),
  filters: Joi.string().description(`Rows that match all of them. ${FILTER_HELP}`).example('[["status","=","To Deliver and Bill"]]'),
  or_filters: Joi.string().description(`Rows that match any of them. ${FILTER_HELP}`),
  order_by: Joi.string().description('Sort: "field asc|desc", comma-separated (default: the DocType\'s order)').example('modified desc'),
  limit_start: Joi.number().integer().min(0).description('Rows to skip (default 0)').example(0),
  limit_page_length: Joi.number()
    .integer()
    .min(0)
    .description(
      `Rows per page (default 20); 0 or more than the ceiling (SVC_MAX_PAGE_LENGTH) gives the ceiling; the length used is in the ${PAGE_LENGTH_HEADER} header`,
    )
    .example(20),
  limit: Joi.number().integer().min(0).description('The same as limit_page_length (read when limit_page_length is absent)'),
  as_dict: Joi.string().valid('0', '1', 'true', 'false').description('1 (default): rows as objects; 0: rows as lists of values in the order of `fields`'),
};

const pascal = (text: string) => text.replace(/(^|\s)(\w)/g, (_m, _s, c: string) => c.toUpperCase()).replace(/\s/g, '');

/** One DocType's document as the API returns it: its readable fields (types vary by field, so any value). */
function documentSchema(name: string, fields: string[]): Joi.ObjectSchema {
  return Joi.object(Object.fromEntries(fields.map((f) => [f, Joi.any()])))
    .unknown(true)
    .description(`A ${name} (child rows, where it has them, as lists)`)
    .label(pascal(name));
}

/** Each DocType's document; a list row holds some of the same fields. */
export function documentSchemas(): Joi.Schema {
  return Joi.alternatives(...docTypes().map((def) => documentSchema(def.name, Object.keys(def.fields)))).description(
    'The document, of the DocType in the path',
  );
}

/** The create bodies of the DocTypes that declare one (`input` in the registry). */
export function inputSchemas(): Joi.Schema {
  const inputs = docTypes().flatMap((def) => (def.input ? [def.input.label(`${pascal(def.name)}Input`)] : []));
  return Joi.alternatives(...inputs).description(
    `The new document: ${docTypes()
      .filter((d) => d.input)
      .map((d) => d.name)
      .join(', ')}`,
  );
}

/** An update: the fields to change; docstatus 1 submits, 2 cancels. */
export const updateSchema = Joi.object({ docstatus: Joi.number().valid(0, 1, 2).description('1 submits, 2 cancels') })
  .unknown(true)
  .label('DocumentUpdate');

/** A list row: an object of the fields asked for, or (as_dict=0) their values in that order. */
const listRows = () => Joi.array().items(Joi.alternatives(Joi.object().unknown(true).label('ListRow'), Joi.array().items(Joi.any()).label('ListRowValues')));
export const listResult = () => Joi.object({ data: listRows() }).label('DocumentList');
export const listMessage = () => Joi.object({ message: listRows() }).label('GetListResult');
export const documentResult = () => Joi.object({ data: documentSchemas() }).label('DocumentResult');

/** frappe.client.get and submit: the document in Frappe's `{ message }` wrapper. */
export const documentMessage = () => Joi.object({ message: documentSchemas() }).label('DocumentMessage');
/** frappe.client.get_count: the number of matching documents. */
export const countMessage = Joi.object({ message: Joi.number().integer().min(0).description('Documents that match the filters') }).label('GetCountResult');
/**
 * frappe.client.get_value: the fields asked for (`fieldname`) of the first match, `{}` when none
 * matches. Open: its keys are the caller's field names, of the DocType's field types.
 */
export const valueMessage = Joi.object({
  message: Joi.object().unknown(true).description('Field name to value; empty when no document matches').label('FieldValues'),
}).label('GetValueResult');
