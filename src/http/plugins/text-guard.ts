/**
 * The edge half of the text rule (shared/text.ts): path parameters, the query string and the parsed
 * body (JSON, form or multipart fields) of every request are checked once, after authentication
 * (an anonymous caller learns nothing about the input rules of a protected route), before any
 * handler or database sees them. A refusal is the spec's 400 ValidationError naming the field.
 *
 * Routes whose records are checked one by one (v1 batches) name those argument keys in
 * `app.perRecord`: a NUL inside one record must fail that record alone, so the edge checks only
 * their depth.
 */
import type { Plugin, Request } from '@hapi/hapi';
import { InputError } from '../../shared/errors.js';
import { findTextProblem, type TextProblem } from '../../shared/text.js';

declare module '@hapi/hapi' {
  interface RouteOptionsApp {
    /** top-level argument keys holding batch records, validated record by record by the handler */
    perRecord?: readonly string[];
  }
}

function problemOf(request: Request): TextProblem | undefined {
  const perRecord = request.route.settings.app?.perRecord;
  // A NUL can reach the path or query only percent-encoded (Node's parser refuses a raw one), and
  // URL decoding never yields a lone surrogate: the common request pays one substring search.
  if (request.raw.req.url?.includes('%00')) {
    const inUrl = findTextProblem(request.params) ?? findTextProblem(request.query, '', perRecord);
    if (inUrl) return inUrl;
  }
  const payload = request.payload as unknown;
  if (payload === null || payload === undefined || Buffer.isBuffer(payload)) return undefined;
  if (typeof payload !== 'object') return findTextProblem(payload, 'body');
  return findTextProblem(payload, Array.isArray(payload) ? 'body' : '', perRecord);
}

export const textGuardPlugin: Plugin<void> = {
  name: 'svc-text-guard',
  register(server) {
    server.ext('onPostAuth', (request, h) => {
      const problem = problemOf(request);
      if (problem) throw new InputError(`${problem.path}: ${problem.message}`);
      return h.continue;
    });
  },
};
