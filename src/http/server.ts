/**
 * The one server factory for `svc serve`, tests and benchmarks: Hapi with auth, error rendering,
 * the text rule at the edge, request logs, security headers, OpenAPI docs at /docs, and every
 * route of the list src/modules.ts plugs in (src/routes.ts). The registrations (src/modules.ts) are the caller's: the process roles
 * (app/lifecycle.ts), the tests' helpers and the bench load them, so the edge imports no composition root.
 */
import Hapi, { type ServerRoute } from '@hapi/hapi';
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../config/index.js';
import { answerParserRefusals } from './client-error.js';
import { docsPlugin } from './docs.js';
import { authPlugin } from './plugins/auth.js';
import { errorBodyPlugin } from './plugins/error-body.js';
import { accessLogWriter } from './plugins/request-log.js';
import { textGuardPlugin } from './plugins/text-guard.js';
import { httpFinished, httpStarted, metricsEnabled } from '../shared/metrics.js';
import { runStartupTasks } from '../shared/startup.js';
import { endRequestSpan, traceListener, tracingOn } from '../shared/tracing.js';

declare module '@hapi/hapi' {
  /** request.headers is Node's request.raw.req.headers: type it so (hapi says Record<string, unknown>). */
  interface ReqRefDefaults {
    Headers: IncomingHttpHeaders;
  }
}

let routeList: () => ServerRoute[] = () => [];

/** The service's routes, plugged by the composition root (src/modules.ts plugs src/routes.ts's list). */
export function plugRoutes(list: () => ServerRoute[]): void {
  routeList = list;
}

export interface ServerOptions {
  config: Config;
  logger: Logger;
  port?: number;
  host?: string;
  docs?: boolean;
}

export async function createServer(opts: ServerOptions): Promise<Hapi.Server> {
  const { config } = opts;
  const server = Hapi.server({
    port: opts.port ?? config.port,
    host: opts.host ?? config.host,
    address: opts.host ?? config.host,
    router: { stripTrailingSlash: true },
    state: { strictHeader: false, ignoreErrors: true },
    routes: routeDefaults(config),
  });
  // Idle sockets time out after 65 s, set once on the listener: hapi's route-level `timeout.socket`
  // (and `timeout.server`) would arm a timer on every request.
  server.listener.timeout = 65_000;
  answerParserRefusals(server.listener);
  server.app.logger = opts.logger;
  await server.register([{ plugin: errorBodyPlugin }, { plugin: authPlugin, options: { config } }, { plugin: textGuardPlugin }]);
  const routes = routeList();
  // the docs plugin describes the routes for the OpenAPI document on its first fetch (http/docs.ts)
  if (opts.docs !== false) await server.register({ plugin: docsPlugin, options: { routes } });
  server.route(routes);
  observeRequests(server, accessLogWriter(opts.logger));
  // the process's start-up work (src/modules.ts) runs before the listener opens
  server.ext('onPreStart', () => runStartupTasks(config));
  return server;
}

/** What every route does unless it says otherwise: body limits, validation, security headers, caching, compression, CORS. */
function routeDefaults(config: Config): Hapi.ServerOptions['routes'] {
  return {
    payload: { maxBytes: config.http.bodyLimitBytes, timeout: 30_000 },
    validate: {
      failAction: (_request, _h, err) => {
        throw err ?? new Error('validation failed'); // Joi details reach the error renderer (hapi always passes them)
      },
      options: { abortEarly: false },
    },
    // OWASP's set for a JSON API; not the legacy X-XSS-Protection (OWASP: leave it unset) nor IE8's
    // X-Download-Options, which every answer would otherwise carry for no client of today.
    security: {
      hsts: config.env === 'production' || config.env === 'sandbox' ? { maxAge: 31536000, includeSubDomains: true } : false,
      xframe: 'deny',
      noSniff: true,
      referrer: 'no-referrer',
      xss: false,
      noOpen: false,
    },
    cache: { otherwise: 'no-store, no-cache, must-revalidate, max-age=0' },
    // JSON answers over 1 KiB are compressed when the client asks; level 1 (nginx's default) keeps
    // most of the gain at a third of zlib's default cost, which a 500-record batch answer feels.
    compression: { gzip: { level: 1 }, deflate: { level: 1 } },
    cors: config.http.corsOrigins.length
      ? {
          origin: [...config.http.corsOrigins],
          credentials: true,
          additionalHeaders: ['X-Frappe-CSRF-Token', 'X-Svc-CSRF-Token', 'X-Frappe-Site-Name', 'Idempotency-Key', 'X-Request-Id'],
          additionalExposedHeaders: ['Retry-After', 'X-Request-Id', 'X-Limit-Page-Length', 'Idempotent-Replayed'],
        }
      : false,
  };
}

/**
 * The access line, metrics and the server span of every request (issue 25), labelled and named by
 * the route's template, never the URL. Nothing is added to hapi's request lifecycle: a request is
 * counted in flight (and, tracing on, runs inside its span) from the listener's own 'request' event,
 * and all three end in one listener of hapi's 'response' event (one dispatch, issue 29), which
 * follows every request once its answer is sent or abandoned; the access line comes first, while
 * the span it quotes is still open.
 */
function observeRequests(server: Hapi.Server, writeAccessLine: ((request: Hapi.Request) => void) | undefined): void {
  const metrics = metricsEnabled(); // SVC_METRICS=false: not even the listeners
  const tracing = tracingOn();
  if (tracing) traceListener(server.listener);
  if (metrics) {
    server.listener.on('request', httpStarted);
    server.listener.on('checkContinue', httpStarted);
  }
  if (!writeAccessLine && !metrics && !tracing) return;
  server.events.on('response', (request) => {
    writeAccessLine?.(request);
    if (!metrics && !tracing) return;
    const response = request.response as { statusCode?: number; output?: { statusCode: number } } | null;
    const status = response?.statusCode ?? response?.output?.statusCode ?? 499; // 499: the client went away first
    // a request injected by a test bypasses the listener: it was not counted in flight (isInjected: hapi's, untyped)
    // the answer's end as hapi stamped it just before this event: no clock reading of our own
    const ms = (request.info.completed || Date.now()) - request.info.received;
    if (metrics) httpFinished(request.method, request.route.path, status, ms, !(request as unknown as { isInjected: boolean }).isInjected);
    if (tracing) endRequestSpan(request.raw.req, request.method.toUpperCase(), request.route.path, status);
  });
}
