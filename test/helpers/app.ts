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

/**
 * The plain app (`startTestApp()`, no options) shared by the test modules of one process. Where a
 * folder had several small files each starting that same app for a few tests, they are modules named
 * `*.cases.ts` (off ava's `test/**\/*.test.ts` glob) imported by the folder's `shared-app.test.ts`:
 * ava registers the tests of every module a test file imports in that file's one worker process, so
 * the folder pays the worker's start, the imports of the helpers and of src/, the database's clone,
 * the server and the coverage file once instead of once per module. The runtime and the database are
 * process-wide singletons, hence one app per process and only the plain one. A module takes the app
 * in its `test.before` with `sharedTestApp()` and never stops it; the aggregator stops it once with
 * `stopSharedTestApp` in its own `test.after.always`, declared after its imports so it runs after
 * theirs. The modules' tests run side by side on the one database (ava runs a file's serial tests one
 * at a time first, then the rest concurrently): a module asserts on its own records, and one that
 * changes what others rely on (a demo vendor's credentials or lockout, a setting, exact counts over
 * shared data) keeps a file and an app of its own.
 */
let shared: Promise<TestApp> | undefined;
let sharedApp: TestApp | undefined;
/** On the shared app, each user's one API key pair of `tokenClient` (a new pair would revoke another module's). */
const sharedKeys = new Map<string, Promise<string>>();
export function sharedTestApp(): Promise<TestApp> {
  shared ??= startTestApp().then((app) => {
    // Idle kept-alive sockets are closed by the client (undici, after 4 s), never by the server: with
    // the server's 5 s timeout, a process running many tests at once stalls its event loop long enough
    // that the server closes a socket the client has just reused (ECONNRESET, seen merged; the race
    // openapi-fuzz resends for). No module checks the server's idle timeout.
    app.server.listener.keepAliveTimeout = 0;
    return (sharedApp = app);
  });
  return shared;
}
export async function stopSharedTestApp(): Promise<void> {
  const app = await shared?.catch(() => undefined); // a failed start failed the modules' before hooks already
  [shared, sharedApp] = [undefined, undefined];
  sharedKeys.clear();
  await app?.stop();
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

/**
 * A client authenticated with a freshly generated API key pair of the user (it replaces the user's
 * previous pair); on the shared app (`sharedTestApp`), the pair its first call made for the user, so
 * one module's keys do not revoke another's (a test of revocation builds its pairs with `buildApiKey`).
 */
export async function tokenClient(app: { url: string }, email: string): Promise<Client> {
  if (app !== sharedApp) return new Client(app.url, { token: (await buildApiKey(email)).token });
  let token = sharedKeys.get(email);
  if (!token) sharedKeys.set(email, (token = buildApiKey(email).then((key) => key.token)));
  return new Client(app.url, { token: await token });
}
