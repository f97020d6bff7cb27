/**
 * The HTTP side every simulator shares: a node:http server on loopback that keeps each request's raw
 * bytes (partners sign raw bodies), logs every call, answers injected failures (failNext) before the
 * partner logic runs, and serves the `/_sim/` controls to loopback peers only.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Faults } from './faults.js';
import { SimError, type FailSpec, type SimRequestLog } from './types.js';

const MAX_BODY = 1024 * 1024; // partners refuse huge bodies too; 1 MB is far above any order

export interface SimRequest {
  method: string;
  /** pathname only */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  /** one header, case-insensitively (first value when repeated) */
  header(name: string): string | undefined;
  /** the body as JSON; throws BadJson when it is not JSON */
  json(): unknown;
}

export interface SimReply {
  status: number;
  /** JSON-encoded unless `text` is given */
  body?: unknown;
  text?: string;
  contentType?: string;
  headers?: Record<string, string | number>;
}

export class BadJson extends Error {}

export type Handler = (req: SimRequest) => SimReply | Promise<SimReply>;

/** A control route under /_sim/ (path relative to it, e.g. `orders/:ref/advance`). */
export interface ControlRoute {
  method: string;
  path: string;
  handle(req: SimRequest, params: Record<string, string>): unknown;
}

export interface SimServer {
  url: string;
  close(): Promise<void>;
  requests(): SimRequestLog[];
  failNext(count: number, spec: FailSpec): void;
  /** hang (true): partner API calls (under `path`, if given) get no answer until hang(false), then are answered as usual */
  hang(on: boolean, path?: string): void;
  /** calls held by a hang right now */
  held(): number;
}

export const json = (status: number, body: unknown, headers?: Record<string, string | number>): SimReply => ({ status, body, headers });

function toRequest(req: IncomingMessage, raw: Buffer): SimRequest {
  const url = new URL(req.url ?? '/', 'http://sim.invalid');
  return {
    method: req.method ?? 'GET',
    path: url.pathname,
    query: url.searchParams,
    headers: req.headers,
    raw,
    header(name) {
      const v = req.headers[name.toLowerCase()];
      return Array.isArray(v) ? v[0] : v;
    },
    json() {
      try {
        return JSON.parse(raw.toString('utf8')) as unknown;
      } catch {
        throw new BadJson('body is not JSON');
      }
    },
  };
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY)
        resolve(undefined); // answered 413; the rest is drained and dropped
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, reply: SimReply): void {
  const payload = reply.text ?? (reply.body === undefined ? '' : JSON.stringify(reply.body));
  const type = reply.contentType ?? (reply.text !== undefined ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8');
  res.writeHead(reply.status, { 'content-type': type, 'content-length': Buffer.byteLength(payload), ...(reply.headers ?? {}) });
  res.end(payload);
}

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

function matchControl(routes: ControlRoute[], method: string, path: string): [ControlRoute, Record<string, string>] | undefined {
  const parts = path.split('/').filter(Boolean);
  for (const route of routes) {
    if (route.method !== method) continue;
    const want = route.path.split('/').filter(Boolean);
    if (want.length !== parts.length) continue;
    const params: Record<string, string> = {};
    if (want.every((w, i) => (w.startsWith(':') ? ((params[w.slice(1)] = decodeURIComponent(parts[i])), true) : w === parts[i]))) return [route, params];
  }
  return undefined;
}

interface ServerOptions {
  host?: string;
  port?: number;
  handle: Handler;
  controls: ControlRoute[];
  /** the partner's own body (and headers) for an injected status given without a body */
  styleError?: (status: number) => SimReply;
}

const reply = (res: ServerResponse, r: SimReply): number => (send(res, r), r.status);

/** A `/_sim/` call: loopback peers only, then the matching control route. */
async function answerControl(controls: ControlRoute[], req: SimRequest, res: ServerResponse): Promise<number> {
  if (!LOOPBACK.test(res.socket?.remoteAddress ?? '')) return reply(res, json(403, { error: 'simulator controls answer loopback callers only' }));
  const found = matchControl(controls, req.method, req.path.slice('/_sim'.length));
  if (!found) return reply(res, json(404, { error: `no control ${req.method} ${req.path}` }));
  return reply(res, json(200, await found[0].handle(req, found[1])));
}

/** An injected answer: after its delay, a reset connection (status 0) or the status with its body. */
async function answerFailure(fail: FailSpec, res: ServerResponse, faults: Faults, styleError: ServerOptions['styleError']): Promise<number> {
  if (fail.delayMs) await faults.wait(fail.delayMs);
  if (fail.reset) {
    res.socket?.destroy();
    return 0;
  }
  const styled = fail.body === undefined ? styleError?.(fail.status) : undefined;
  return reply(res, {
    status: fail.status,
    body: fail.body ?? styled?.body ?? {},
    text: styled?.text,
    headers: { ...(styled?.headers ?? {}), ...(fail.headers ?? {}) },
  });
}

/** Answers one call (controls, then a hang, then an injected failure, then the partner) and logs it. */
function serveWith(opts: ServerOptions, faults: Faults, log: SimRequestLog[]) {
  const answer = async (req: SimRequest, res: ServerResponse): Promise<number> => {
    if (req.path.startsWith('/_sim/')) return answerControl(opts.controls, req, res);
    await faults.holdWhileHung(req.path);
    const fail = faults.take(req.path);
    if (fail) return answerFailure(fail, res, faults, opts.styleError);
    return reply(res, await opts.handle(req));
  };
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const at = new Date().toISOString();
    const entry: SimRequestLog = { method: req.method ?? 'GET', path: req.url ?? '/', status: 0, at };
    log.push(entry);
    try {
      const raw = await readBody(req);
      if (!raw) entry.status = reply(res, json(413, { error: 'request body too large' }));
      else entry.status = await answer(toRequest(req, raw), res);
    } catch (err) {
      const status = err instanceof SimError ? err.status : err instanceof BadJson ? 400 : 500;
      if (!res.headersSent && !res.destroyed) entry.status = reply(res, json(status, { error: (err as Error).message }));
    }
  };
}

/** Listens on host:port and answers the base URL callers use (loopback for a wildcard address). */
async function listen(server: Server, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const shown = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return `http://${shown === '0.0.0.0' ? '127.0.0.1' : shown}:${addr.port}`;
}

/** Starts the server; `handle` answers the partner API, `controls` the /_sim/ routes. */
export async function startSimServer(opts: ServerOptions): Promise<SimServer> {
  const log: SimRequestLog[] = [];
  const faults = new Faults();
  const serve = serveWith(opts, faults, log);
  // node ignores what a request listener returns: serve answers its own failures (its catch)
  const server = createServer((req, res) => void serve(req, res));
  // idle connections kept 5 s (node's default; real partners keep theirs longer): with 1 s, the hint
  // (Keep-Alive: timeout=1) is below undici's 2 s safety margin, so every call opened a new connection
  server.keepAliveTimeout = 5000;
  const url = await listen(server, opts.host ?? '127.0.0.1', opts.port ?? 0);
  return {
    url,
    requests: () => log.map((e) => ({ ...e })),
    failNext: (count, spec) => faults.failNext(count, spec),
    hang: (on, path) => faults.hang(on, path),
    held: () => faults.held(),
    async close() {
      faults.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
