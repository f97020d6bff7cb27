/**
 * The documentation of a method's success body (issue 26 §5), shared by the routes and the domains'
 * `*.docs.ts` files that describe what their services return: Frappe's `{ message }` wrapper, named.
 * Read when the OpenAPI document is built (http/openapi.ts); nothing here runs on a request.
 */
import Joi from 'joi';

/** Frappe's `{ message }` wrapper around a method's result, named. */
export const messageOf = (result: Joi.Schema, label: string) => Joi.object({ message: result }).label(label);

/** The body of a method that returns nothing: `{}` (Frappe sends no `message` then). */
export const emptyResult = Joi.object({}).label('Empty');
