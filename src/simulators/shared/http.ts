/**
 * The HTTP side every simulator shares: a node:http server on loopback that keeps each request's raw
 * bytes (partners sign raw bodies), logs every call, answers injected failures (failNext) before the
 * partner logic runs, and serves the `/_sim/` controls to loopback peers only.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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

/** Starts the server; `handle` answers the partner API, `controls` the /_sim/ routes. */
export async function startSimServer(opts: {
  host?: string;
  port?: number;
  handle: Handler;
  controls: ControlRoute[];
  /** the partner's own body (and headers) for an injected status given without a body */
  styleError?: (status: number) => SimReply;
}): Promise<SimServer> {
  const log: SimRequestLog[] = [];
  const failures: { left: number; spec: FailSpec }[] = [];
  const delays = new Set<NodeJS.Timeout>();
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => (delays.delete(t), resolve()), ms);
      delays.add(t);
    });

  // a hung partner: calls wait here, unanswered, until the hang ends (then run as usual, even when
  // the caller gave up meanwhile: the partner caught up) or the server closes
  let hanging: { path?: string } | undefined;
  const held = new Set<() => void>();
  const holdWhileHung = (path: string): Promise<void> | undefined => {
    if (!hanging || (hanging.path && !path.startsWith(hanging.path))) return undefined;
    return new Promise<void>((resolve) => {
      const release = () => (held.delete(release), resolve());
      held.add(release);
    });
  };
  const releaseHeld = () => {
    for (const release of [...held]) release();
  };

  const takeFailure = (path: string): FailSpec | undefined => {
    const i = failures.findIndex((f) => !f.spec.path || path.startsWith(f.spec.path));
    if (i === -1) return undefined;
    const f = failures[i];
    if (--f.left <= 0) failures.splice(i, 1);
    return f.spec;
  };

  const answer = async (req: SimRequest, res: ServerResponse): Promise<number> => {
    if (req.path.startsWith('/_sim/')) {
      if (!LOOPBACK.test(res.socket?.remoteAddress ?? '')) return reply(res, json(403, { error: 'simulator controls answer loopback callers only' }));
      const found = matchControl(opts.controls, req.method, req.path.slice('/_sim'.length));
      if (!found) return reply(res, json(404, { error: `no control ${req.method} ${req.path}` }));
      return reply(res, json(200, await found[0].handle(req, found[1])));
    }
    await holdWhileHung(req.path);
    const fail = takeFailure(req.path);
    if (fail) {
      if (fail.delayMs) await wait(fail.delayMs);
      if (fail.reset) {
        res.socket?.destroy();
        return 0;
      }
      const styled = fail.body === undefined ? opts.styleError?.(fail.status) : undefined;
      return reply(res, {
        status: fail.status,
        body: fail.body ?? styled?.body ?? {},
        text: styled?.text,
        headers: { ...(styled?.headers ?? {}), ...(fail.headers ?? {}) },
      });
    }
    return reply(res, await opts.handle(req));
  };
  const reply = (res: ServerResponse, r: SimReply): number => (send(res, r), r.status);

  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
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
  // node ignores what a request listener returns: serve answers its own failures (the catch above)
  const server = createServer((req, res) => void serve(req, res));
  // idle connections kept 5 s (node's default; real partners keep theirs longer): with 1 s, the hint
  // (Keep-Alive: timeout=1) is below undici's 2 s safety margin, so every call opened a new connection
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${addr.port}`,
    requests: () => log.map((e) => ({ ...e })),
    failNext(count, spec) {
      if (count > 0) failures.push({ left: count, spec });
    },
    hang(on, path) {
      hanging = on ? { path } : undefined;
      if (!on) releaseHeld();
    },
    held: () => held.size,
    async close() {
      for (const t of delays) clearTimeout(t);
      delays.clear();
      hanging = undefined;
      releaseHeld();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
