/**
 * One HTTP attempt of a vendor webhook: envelope, signature, headers, timeout, no redirects, SSRF
 * guard at connect time. Knows nothing about the outbox; the handler and test-fire both use it.
 */
import { performance } from 'node:perf_hooks';
import type { Agent } from 'undici';
import { hmacHex } from '../shared/crypto.js';
import { runtime, scrubText } from '../shared/runtime.js';
import { loadUndici, type Undici } from '../shared/undici.js';
import { inSpan } from '../shared/tracing.js';
import { assertSendableUrl, guardedLookup, RefusedTargetError } from './url-guard.js';

export interface Envelope {
  id: string;
  event: string;
  timestamp: string;
  vendor: string;
  created_at: string;
  attempt: number;
  data: unknown;
}

export interface SendResult {
  ok: boolean;
  /** success | http_error | timeout | connection_error | refused */
  status: 'success' | 'http_error' | 'timeout' | 'connection_error' | 'refused';
  httpStatus: number | null;
  durationMs: number;
  excerpt: string | null;
  error: string | null;
  /** Seconds asked by a Retry-After header, when the answer had a valid one. */
  retryAfterSeconds: number | null;
}

const EXCERPT_CHARS = 500;
const MAX_READ_BYTES = 64 * 1024;

/** UTC instant with an explicit offset, e.g. 2026-11-22T08:00:00.000+00:00. */
export function utcTimestamp(date = new Date()): string {
  return date.toISOString().replace(/Z$/, '+00:00');
}

/** The signature header value: sha256=<hex HMAC-SHA256(secret, raw body)>. */
export function signBody(secret: string, rawBody: string | Buffer): string {
  return `sha256=${hmacHex(secret, rawBody)}`;
}

/** Every header of a delivery, prefixed and again without the X- prefix (same values). */
export function deliveryHeaders(envelope: Envelope, signature: string): Record<string, string> {
  const svc: Record<string, string> = {
    'Svc-Signature': signature,
    'Svc-Event': envelope.event,
    'Svc-Delivery-Id': envelope.id,
    'Svc-Attempt': String(envelope.attempt),
  };
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'svc-webhooks/1' };
  for (const [name, value] of Object.entries(svc)) {
    headers[`X-${name}`] = value;
    headers[name] = value;
  }
  return headers;
}

/** Seconds from a Retry-After value (delta-seconds or an HTTP date); null when absent or invalid. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return null;
  const text = raw.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

let agent: Agent | undefined;

/** One keep-alive pool per process; its sockets resolve names through the SSRF guard. */
function webhookAgent(undici: Undici): Agent {
  agent ??= new undici.Agent({
    connect: { lookup: guardedLookup(() => runtime().config.webhook.allowPrivateTargets), timeout: 5_000 } as never,
    keepAliveTimeout: 4_000,
    connections: 64,
  });
  return agent;
}

function describe(err: unknown): { status: SendResult['status']; error: string } {
  const e = err as { name?: string; code?: string; message?: string; cause?: unknown };
  const cause = e.cause as { code?: string; message?: string } | undefined;
  if (err instanceof RefusedTargetError || cause instanceof RefusedTargetError || e.code === 'ERR_SVC_REFUSED_TARGET') {
    return { status: 'refused', error: `refused: ${(cause instanceof RefusedTargetError ? cause : e).message}` };
  }
  if (
    e.name === 'TimeoutError' ||
    e.name === 'AbortError' ||
    e.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    e.code === 'UND_ERR_BODY_TIMEOUT' ||
    e.code === 'UND_ERR_ABORTED'
  ) {
    return { status: 'timeout', error: 'timeout: no answer within the time limit' };
  }
  const code = e.code ?? cause?.code;
  return { status: 'connection_error', error: `connection error${code ? ` ${code}` : ''}: ${scrubText(String(e.message ?? err))}`.slice(0, 500) };
}

/**
 * POSTs the signed envelope once. Never throws: every outcome (2xx, other status, timeout,
 * connection error, refused target) is a SendResult. The body is signed exactly as sent. With
 * tracing on, the attempt is a span named by its event.
 */
export function sendEnvelope(url: string, secret: string, envelope: Envelope, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<SendResult> {
  return inSpan(`webhook ${envelope.event}`, { 'svc.webhook.event': envelope.event, 'svc.webhook.attempt': envelope.attempt }, () =>
    sendOnce(url, secret, envelope, opts),
  );
}

async function sendOnce(url: string, secret: string, envelope: Envelope, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<SendResult> {
  const undici = await loadUndici(); // before the clock and the timeout start: the first call loads it
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const rawBody = JSON.stringify(envelope);
  const headers = deliveryHeaders(envelope, signBody(secret, rawBody));
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  try {
    assertSendableUrl(url, runtime().config);
    const res = await undici.request(url, {
      method: 'POST',
      headers,
      body: rawBody,
      dispatcher: webhookAgent(undici),
      signal,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
    });
    const read = await readExcerpt(res.body);
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    return {
      ok,
      status: ok ? 'success' : 'http_error',
      httpStatus: res.statusCode,
      durationMs: elapsed(),
      excerpt: read ? scrubText(read).slice(0, EXCERPT_CHARS) : null,
      error: ok ? null : `receiver answered ${res.statusCode}`,
      retryAfterSeconds: ok ? null : parseRetryAfter(res.headers['retry-after']),
    };
  } catch (err) {
    const { status, error } = describe(
      timeout.aborted && !(err instanceof RefusedTargetError) ? Object.assign(new Error('timeout'), { name: 'TimeoutError' }) : err,
    );
    return { ok: false, status, httpStatus: null, durationMs: elapsed(), excerpt: null, error, retryAfterSeconds: null };
  }
}

/** The start of the receiver's answer (about EXCERPT_CHARS); a huge answer is not read past MAX_READ_BYTES. */
async function readExcerpt(body: AsyncIterable<unknown>): Promise<string> {
  let read = '';
  let bytes = 0;
  for await (const chunk of body) {
    bytes += (chunk as Buffer).length;
    if (read.length < EXCERPT_CHARS) read += (chunk as Buffer).toString('utf8');
    if (bytes > MAX_READ_BYTES) break; // a huge answer is not read to the end
  }
  return read;
}

/** Closes the keep-alive pool (tests and shutdown). */
export async function closeWebhookAgent(): Promise<void> {
  const a = agent;
  agent = undefined;
  await a?.close().catch(() => undefined);
}
