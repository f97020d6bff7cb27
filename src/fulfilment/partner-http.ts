/**
 * The HTTP client connectors call partners with: JSON in and out, a timeout per call, no redirects
 * (a redirect would carry the partner's credentials elsewhere), bodies read up to 1 MB, and one call
 * log row per call. With `partners.simulatorsOnly` (sandbox), sockets connect to loopback only.
 */
import { performance } from 'node:perf_hooks';
import type { Agent, Dispatcher } from 'undici';
import { partnerCallFinished } from '../shared/metrics.js';
import { runtime, scrubText } from '../shared/runtime.js';
import { loadUndici, type Undici } from '../shared/undici.js';
import { inSpan } from '../shared/tracing.js';
import { logPartnerCall, outcomeOfStatus, type CallEntry, type LoggedCall } from './call-log.service.js';
import { PartnerCallError, type PartnerHttp, type PartnerRequest, type PartnerResponse } from './connector.js';
import { loopbackOnlyConnector } from './sandbox.js';

const MAX_BODY_BYTES = 1024 * 1024;

let agent: Agent | undefined;
let agentLoopbackOnly: boolean | undefined;

function partnerAgent(undici: Undici): Agent {
  const loopbackOnly = runtime().config.partners.simulatorsOnly;
  if (!agent || agentLoopbackOnly !== loopbackOnly) {
    void agent?.close().catch(() => undefined);
    agentLoopbackOnly = loopbackOnly;
    agent = new undici.Agent({
      connect: loopbackOnly ? loopbackOnlyConnector(undici, 5_000) : { timeout: 5_000 },
      keepAliveTimeout: 4_000,
      connections: 32,
    });
  }
  return agent;
}

/** Closes the keep-alive pool (tests and shutdown). */
export async function closePartnerAgent(): Promise<void> {
  const a = agent;
  agent = undefined;
  await a?.close().catch(() => undefined);
}

export interface CallScope {
  partner: string;
  salesOrder?: string | null;
  partnerOrderId?: number | null;
  signal?: AbortSignal;
  /**
   * Calls are held here instead of each being logged at once: the caller writes them with its record
   * of what the calls did (the partner order handler: one statement fewer per call) and writes any
   * still held when it ends otherwise (logPartnerCalls).
   */
  hold?: LoggedCall[];
}

function endpointOf(req: PartnerRequest): string {
  if (req.endpoint) return req.endpoint;
  try {
    return `${req.method} ${new URL(req.url).pathname}`;
  } catch {
    return `${req.method} (invalid URL)`;
  }
}

/** The endpoint as a metric's label: the connector's template; a call without one is not labelled by its URL. */
function metricEndpointOf(req: PartnerRequest): string {
  return req.endpoint ?? `${req.method} (unnamed)`;
}

function failureOf(err: unknown, timedOut: boolean): PartnerCallError {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  if (code === 'ERR_SVC_NOT_SIMULATOR' || e.cause?.code === 'ERR_SVC_NOT_SIMULATOR')
    return new PartnerCallError(String(e.cause?.message ?? e.message), 'refused');
  if (timedOut || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT')
    return new PartnerCallError('timeout: the partner did not answer in time', 'timeout');
  return new PartnerCallError(`connection error${code ? ` ${code}` : ''}: ${scrubText(String(e.message ?? err))}`.slice(0, 300), 'connection_error');
}

async function readBody(body: AsyncIterable<Buffer | Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) break; // the rest of a huge answer is not read
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A PartnerHttp whose calls are logged under `scope` (partner, Sales Order, partner order); with
 * tracing on, each call is a span named by its partner and endpoint template (never the URL).
 */
export function partnerHttp(scope: CallScope): PartnerHttp {
  return {
    request: (req: PartnerRequest) =>
      inSpan(`partner ${scope.partner} ${metricEndpointOf(req)}`, { 'svc.partner': scope.partner, 'svc.partner.endpoint': metricEndpointOf(req) }, () =>
        send(scope, req),
      ),
  };
}

/** One call, logged and counted. */
async function send(scope: CallScope, req: PartnerRequest): Promise<PartnerResponse> {
  const undici = await loadUndici();
  const timeoutMs = req.timeoutMs ?? runtime().config.partners.timeoutMs;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = scope.signal ? AbortSignal.any([scope.signal, timeout]) : timeout;
  const started = performance.now();
  const log = callLog(scope, req, started);
  const { headers, body } = bodyOf(req);
  let res: Dispatcher.ResponseData;
  let text: string;
  try {
    res = await undici.request(req.url, {
      method: req.method,
      headers,
      body,
      dispatcher: partnerAgent(undici),
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    text = await readBody(res.body);
  } catch (err) {
    const failure = failureOf(err, timeout.aborted);
    await log(null, failure.kind, failure.message);
    throw failure;
  }
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  await log(res.statusCode, outcomeOfStatus(res.statusCode), res.statusCode >= 400 ? `partner answered ${res.statusCode}` : undefined);
  return { status: res.statusCode, headers: res.headers, text, json, durationMs: Math.round(performance.now() - started) };
}

/** How a call that started at `started` ends: counted in the metrics, and logged (or held for the caller's statement, `scope.hold`). */
function callLog(scope: CallScope, req: PartnerRequest, started: number) {
  const endpoint = endpointOf(req);
  return async (httpStatus: number | null, outcome: string, error?: string) => {
    const seconds = (performance.now() - started) / 1000;
    partnerCallFinished(
      scope.partner,
      metricEndpointOf(req),
      httpStatus === null ? (outcome === 'timeout' ? 'timeout' : 'error') : String(httpStatus),
      seconds,
    );
    const entry: CallEntry = {
      partner: scope.partner,
      direction: 'outbound',
      method: req.method,
      endpoint,
      httpStatus,
      durationMs: Math.round(performance.now() - started),
      outcome,
      salesOrder: scope.salesOrder,
      partnerOrderId: scope.partnerOrderId,
      error,
    };
    if (scope.hold) scope.hold.push({ ...entry, at: new Date() });
    else await logPartnerCall(entry);
  };
}

/** The request's headers and body (a JSON body serialised, its content type set unless the request set one). */
function bodyOf(req: PartnerRequest): { headers: Record<string, string>; body: PartnerRequest['body'] } {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'svc-connectors/1', ...(req.headers ?? {}) };
  let body = req.body;
  if (req.json !== undefined) {
    body = JSON.stringify(req.json);
    headers['content-type'] ??= 'application/json';
  }
  return { headers, body };
}
