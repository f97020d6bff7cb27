/**
 * A real service for a test file: its own database (cloned from the seeded template), the real Hapi
 * server on 127.0.0.1:0, and clients that log in or use API keys exactly as users do.
 */
import type { Server } from '@hapi/hapi';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { loadConfig, type Config } from '../../src/config/index.js';
import { initDatabase, closeDatabase } from '../../src/db/sequelize.js';
import { createServer } from '../../src/http/server.js';
import { plugServedRoutes } from '../../src/modules.js'; // the composition root: models, policy, handlers, jobs (server.ts leaves it to its caller)
import { createLogger, initRuntime } from '../../src/shared/runtime.js';
import { DEMO_PASSWORD } from '../../seeds/foundation.seed.js';
import { createTestDatabase } from './db.js';
import { buildApiKey } from './factories.js';
import { recordForSuite } from './contract.js';
import { Client, cookiesOf } from './http.js';

export interface TestApp {
  url: string;
  dbUrl: string;
  config: Config;
  server: Server;
  http: Client;
  /** every log line the service wrote (to check redaction) */
  logs: string[];
  stop(): Promise<void>;
}

export function testConfig(dbUrl: string, env: Record<string, string> = {}, overrides: Partial<Config> = {}): Config {
  return loadConfig({ ...process.env, SVC_ENV: 'test', DATABASE_URL: dbUrl, SVC_LOG_LEVEL: 'info', ...env }, overrides);
}

/**
 * `selfBaseUrl`: SVC_BASE_URL is the server's own loopback address (a free port picked first), for
 * tests where the service hands a partner URLs of its own (webhook targets).
 */
export async function startTestApp(
  opts: { env?: Record<string, string>; config?: Partial<Config>; dbUrl?: string; selfBaseUrl?: boolean } = {},
): Promise<TestApp> {
  const dbUrl = opts.dbUrl ?? (await createTestDatabase());
  const port = opts.selfBaseUrl ? await freePort() : 0;
  const config = testConfig(dbUrl, opts.env, { ...(port ? { baseUrl: `http://127.0.0.1:${port}` } : {}), ...opts.config });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const runtimeLogger = createLogger(config, sink);
  initRuntime(config, { logger: runtimeLogger });
  initDatabase(config);
  await plugServedRoutes();
  const server = await createServer({ config, logger: runtimeLogger, port, host: '127.0.0.1' });
  recordForSuite(server);
  await server.start();
  const url = `http://127.0.0.1:${server.info.port}`;
  return {
    url,
    dbUrl,
    config,
    server,
    http: new Client(url),
    logs,
    async stop() {
      await server.stop({ timeout: 2000 });
      await closeDatabase();
    },
  };
}

/** A TCP port free on loopback right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Logs in over HTTP; the client carries the sid cookie and the CSRF token. */
export async function loginAs(app: { url: string }, email: string, password = DEMO_PASSWORD): Promise<Client> {
  const res = await new Client(app.url).post('/api/method/login', { usr: email, pwd: password });
  if (res.status !== 200) throw new Error(`login ${email} failed: ${res.status} ${res.text}`);
  return new Client(app.url, { cookie: cookiesOf(res), csrf: res.body.csrf_token });
}

/** A client authenticated with a freshly generated API key pair of the user (it replaces the user's previous pair). */
export async function tokenClient(app: { url: string }, email: string): Promise<Client> {
  return new Client(app.url, { token: (await buildApiKey(email)).token });
}
