/**
 * The one place that turns every failure (DomainError, Boom, Joi, Sequelize, unexpected) into the
 * spec's error body { exc_type, exception, _server_messages } with the spec's status.
 * `_server_messages` is encoded as Frappe does: a JSON string of a list of JSON-encoded objects.
 */
import Boom from '@hapi/boom';
import type { Plugin, Request, ResponseToolkit } from '@hapi/hapi';
import { DomainError } from '../../shared/errors.js';
import { scrubText } from '../../shared/runtime.js';

const EXC_TYPE: Record<number, string> = {
  400: 'ValidationError',
  401: 'AuthenticationError',
  403: 'PermissionError',
  404: 'DoesNotExistError',
  405: 'MethodNotAllowedError',
  409: 'ConflictError',
  413: 'RequestEntityTooLargeError',
  415: 'UnsupportedMediaTypeError',
  417: 'ValidationError',
  422: 'UnprocessableEntityError',
  429: 'TooManyRequestsError',
};

/** Builds the spec's error body. */
export function errorBody(excType: string, messages: string[]): Record<string, unknown> {
  return {
    exc_type: excType,
    exception: `${excType}: ${messages.join('; ')}`,
    _server_messages: JSON.stringify(messages.map((message) => JSON.stringify({ message, title: 'Message', indicator: 'red', raise_exception: 1 }))),
  };
}

interface SequelizeLike {
  name?: string;
  parent?: { code?: string };
  original?: { code?: string };
}

/** Maps a database error we expect under load to a client status; everything else stays 500. */
function fromDatabase(err: SequelizeLike): DomainError | undefined {
  const code = err.parent?.code ?? err.original?.code;
  if (code === '23505') return new DomainError('Duplicate entry', 'DuplicateEntryError', 409);
  if (code === '23514' && /available/.test(String((err as Error).message))) return new DomainError('Insufficient stock', 'ValidationError', 417);
  if (code === '55P03' || code === '40P01' || code === '40001') return new DomainError('The record is busy; retry the request', 'ConflictError', 409);
  if (code === '22P02' || code === '22007' || code === '22008' || code === '22003') return new DomainError('Invalid value', 'ValidationError', 400);
  return undefined;
}

function joiMessages(err: unknown): string[] | undefined {
  const details = (err as { details?: { message: string }[] }).details;
  return Array.isArray(details) && details.length ? details.map((d) => d.message.replace(/"/g, '')) : undefined;
}

export function renderError(request: Request, h: ResponseToolkit, error: Error) {
  let err: Error = error;
  if (!(err instanceof DomainError) && (err as SequelizeLike).name?.startsWith('Sequelize')) err = fromDatabase(err) ?? err;
  let status: number;
  let excType: string;
  let messages: string[];
  let headers: Record<string, string> = {};
  if (err instanceof DomainError) {
    status = err.status;
    excType = err.excType;
    messages = err.messages;
    headers = err.headers;
  } else if (Boom.isBoom(err) && !(err as { isDeveloperError?: boolean }).isDeveloperError && err.output.statusCode < 500) {
    status = err.output.statusCode;
    excType = (err.data as { excType?: string } | null)?.excType ?? EXC_TYPE[status] ?? 'Exception';
    messages = joiMessages(err) ?? [status === 404 && err.message === 'Not Found' ? 'Not found' : err.message];
    for (const [k, v] of Object.entries(err.output.headers)) if (v !== undefined && k.toLowerCase() !== 'content-type') headers[k] = String(v);
  } else {
    status = 500;
    excType = 'InternalServerError';
    messages = ['Internal server error'];
  }
  if (status >= 500) {
    request.log(['error'], err);
    request.server.app.logger?.error(
      { reqId: request.info.id, err: { type: err.name, message: scrubText(err.message), stack: err.stack && scrubText(err.stack) } },
      'unexpected error',
    );
  }
  const safe = messages.map((m) => scrubText(m));
  const body = errorBody(excType, safe);
  // Frappe's login failure carries `message` too; the SDK shows it.
  if (status === 401) body.message = safe[0];
  const reply = h.response(body).code(status);
  for (const [k, v] of Object.entries(headers)) reply.header(k, v);
  reply.header('cache-control', 'no-store');
  reply.header('x-request-id', request.info.id);
  return reply;
}

/**
 * The one onPreResponse step of the API: errors become the spec's body; every answer carries the
 * request id (X-Request-Id) that the access log and error logs quote.
 */
export const errorBodyPlugin: Plugin<void> = {
  name: 'svc-error-body',
  register(server) {
    server.ext('onPreResponse', (request, h) => {
      const { response } = request;
      if (response instanceof Error) return renderError(request, h, response);
      if (response && 'header' in response) response.header('x-request-id', request.info.id);
      return h.continue;
    });
  },
};

declare module '@hapi/hapi' {
  interface ServerApplicationState {
    logger?: import('pino').Logger;
  }
}
