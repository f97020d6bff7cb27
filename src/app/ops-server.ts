/**
 * The operations port (issue 25): a small node:http listener beside the API, for probes and
 * Prometheus, on every long-running role. /livez answers while the event loop does; /readyz checks
 * the database, the migrations and, for a process that runs the worker, its scheduler and heartbeat;
 * /metrics is the Prometheus exposition. Kept apart from Hapi so a probe never queues behind API
 * traffic, auth or the request log, and so the worker (which has no API) has one too.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config/index.js';
import { migrationStatus } from '../db/migrator.js';
import { db, selectOne } from '../db/sequelize.js';
import { metricsEnabled, metricsText } from '../shared/metrics.js';
import { within } from '../shared/within.js';

/** A readiness check's longest wait on the database: a probe answers 503 rather than hang. */
const CHECK_MS = 2000;

/** What a role adds to readiness (the worker: scheduler running, heartbeat fresh); undefined when fine, else the problem. */
export type RoleCheck = () => string | undefined;

export interface OpsServer {
  url: string;
  close(): Promise<void>;
}

/** Readiness: answers the problems found (none: ready). */
async function problems(roleChecks: RoleCheck[]): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  const database = await within(
    selectOne('SELECT 1 AS ok').then(
      () => undefined,
      (err: Error) => err.message,
    ),
    Date.now() + CHECK_MS,
  );
  if (database.late || database.value) {
    found.database = database.late ? `no answer within ${CHECK_MS} ms` : 'unreachable';
    return found; // nothing below can be checked
  }
  const migrations = await within(migrationStatus(db()), Date.now() + CHECK_MS).catch(() => ({ late: true as const }));
  if (migrations.late) found.migrations = 'status unknown';
  else if (migrations.value.pending.length) found.migrations = `${migrations.value.pending.length} pending`;
  for (const check of roleChecks) {
    const problem = check();
    if (problem) found[problem.split(':')[0]] = problem;
  }
  return found;
}

/** Starts the operations listener of this process (port 0: a free one). */
export async function startOpsServer(config: Config, port: number, roleChecks: RoleCheck[]): Promise<OpsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, body: string, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, JSON.stringify({ status: 'method not allowed' }));
    if (path === '/livez') return send(200, JSON.stringify({ status: 'live' }));
    if (path === '/readyz')
      return void problems(roleChecks).then((found) =>
        Object.keys(found).length ? send(503, JSON.stringify({ status: 'not ready', problems: found })) : send(200, JSON.stringify({ status: 'ready' })),
      );
    if (path === '/metrics' && metricsEnabled())
      return void metricsText().then(
        ({ body, contentType }) => send(200, body, contentType),
        (err: Error) => send(500, JSON.stringify({ status: 'metrics failed', error: err.message })),
      );
    send(404, JSON.stringify({ status: 'not found', paths: ['/livez', '/readyz', ...(metricsEnabled() ? ['/metrics'] : [])] }));
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, config.ops.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.address.includes(':') ? `[${address.address}]` : address.address;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // a scraper's keep-alive socket must not hold the shutdown
      }),
  };
}
