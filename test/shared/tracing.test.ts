/**
 * Tracing across the asynchronous hop: a real OTLP/HTTP receiver (node:http; protobuf, and JSON)
 * collects what `svc serve` and `svc worker` child processes export; an order submitted over HTTP
 * is one trace from the submit's HTTP span through its database statements and the outbox to the
 * worker's span for the row and its call to the otcpartner simulator. Without
 * OTEL_EXPORTER_OTLP_ENDPOINT nothing of OpenTelemetry loads (a preload refuses to resolve it) and
 * nothing is sent.
 */
import test from 'ava';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import type { RunningSimulator } from '../../src/simulators/index.js';
import { configureOtc, otcSimulator } from '../fulfilment/helpers.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { eventually } from '../helpers/eventually.js';
import { buildApiKey, buildItem, orderBody } from '../helpers/factories.js';
import { Client } from '../helpers/http.js';
import { decodeTraceExport, type OtlpSpan } from '../helpers/otlp-protobuf.js';
import { spawnServe, spawnWorker, type Child } from '../helpers/processes.js';

let app: TestApp;
let db: pg.Client;
let sim: RunningSimulator;
let collector: Server;
let collectorUrl = '';
const posts: { path: string; type: string }[] = [];
const spans: OtlpSpan[] = [];
const children: Child[] = [];

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  sim = await otcSimulator(app);
  await configureOtc(sim.url);
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posts.push({ path: req.url ?? '', type: String(req.headers['content-type']) });
      const type = String(req.headers['content-type']);
      if (req.url === '/v1/traces' && type.startsWith('application/json')) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
        for (const r of body.resourceSpans) for (const s of r.scopeSpans) spans.push(...s.spans);
      } else if (req.url === '/v1/traces' && type.startsWith('application/x-protobuf')) {
        spans.push(...decodeTraceExport(Buffer.concat(chunks)));
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', () => r()));
  collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
});
test.after.always(async () => {
  for (const c of children) await c.stop('SIGKILL').catch(() => undefined);
  await new Promise((r) => collector?.close(r));
  await sim?.close();
  await db?.end();
  await app?.stop();
});

const attr = (s: OtlpSpan, key: string) => s.attributes?.find((a) => a.key === key)?.value.stringValue;

/** Starts serve and worker with `env`, creates and submits an order of an otcpartner item over HTTP; answers the order's name. */
async function submitThroughProcesses(env: Record<string, string>): Promise<{ name: string; serve: Child; worker: Child }> {
  const serve = await spawnServe(app.dbUrl, env);
  const worker = await spawnWorker(app.dbUrl, env);
  children.push(serve, worker);
  const item = await buildItem({ mapping: { otc_sku: `OTC-TRACE-${children.length}` }, stock: { 'Main Warehouse - MSE': 10 } });
  const http = new Client(serve.url!, { token: (await buildApiKey('clinic@demo.svc.local')).token });
  const created = await http.post('/api/resource/Sales Order', orderBody([{ item_code: item, qty: 1 }]));
  const name = (created.body as { data: { name: string } }).data.name;
  const submitted = await http.put(`/api/resource/Sales Order/${name}`, { docstatus: 1 });
  if (submitted.status !== 200) throw new Error(`submit answered ${submitted.status}: ${submitted.text}`);
  await eventually(async () => (await db.query(`SELECT 1 FROM partner_orders WHERE sales_order = $1 AND status = 'created'`, [name])).rowCount === 1, {
    timeoutMs: 60_000,
    message: `${name} created at otcpartner`,
  });
  return { name, serve, worker };
}

test.serial('one trace runs from the HTTP submit through the outbox to the worker and its partner call', async (t) => {
  // the processes' default encoding, protobuf (OTLP's own default): the receiver decodes it
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl, OTEL_BSP_SCHEDULE_DELAY: '200', SVC_LOG_LEVEL: 'info' };
  const { name, serve, worker } = await submitThroughProcesses(env);
  // a clean stop exports what is still held
  t.is(await serve.stop('SIGTERM'), 0, serve.output());
  t.is(await worker.stop('SIGTERM'), 0, worker.output());
  t.true(
    posts.some((p) => p.path === '/v1/traces' && p.type.startsWith('application/x-protobuf')),
    'exported as protobuf by default',
  );
  const submit = spans.find((s) => s.name === 'PUT /api/resource/{doctype}/{name}' && s.kind === 2);
  if (!submit) return t.fail(`no submit span among: ${[...new Set(spans.map((s) => s.name))].join(', ')}`);
  t.is(attr(submit, 'http.route'), '/api/resource/{doctype}/{name}');
  const trace = spans.filter((s) => s.traceId === submit.traceId);
  const names = trace.map((s) => s.name);
  const database = trace.filter((s) => attr(s, 'db.query.text') !== undefined);
  t.true(database.length > 0, `a database span in the trace: ${names.join(', ')}`);
  t.true(
    database.every((s) => !attr(s, 'db.query.text')!.includes(name)),
    'no value in the statements',
  );
  for (const s of database) {
    t.is(s.name, attr(s, 'db.query.summary') ?? '(none)', 'a statement span is named by its summary');
    t.regex(s.name, /^[A-Z]+( [a-z_][\w.]*)?$/, 'its summary: the operation and the first table');
    t.true(attr(s, 'db.query.text')!.length <= 1000, 'its text cut at 1,000 characters');
  }
  t.true(
    database.some((s) => s.name === 'INSERT outbox'),
    `the submit's outbox row among the statements: ${database.map((s) => s.name).join(', ')}`,
  );
  t.true(names.includes('outbox fulfilment_route'), names.join(', '));
  const outbox = trace.find((s) => s.name === 'outbox partner_order');
  t.truthy(outbox, `the worker's span of the partner order row: ${names.join(', ')}`);
  const call = trace.find((s) => s.name.startsWith('partner otcpartner POST'));
  t.truthy(call, `the partner call's span: ${names.join(', ')}`);
  t.truthy(
    trace.find((s) => s.parentSpanId === call?.spanId && s.kind === 3),
    'its HTTP client span (undici) beneath it',
  );
  t.regex(serve.output(), new RegExp(`"trace_id":"${submit.traceId}"`), 'log lines carry the trace id');
});

test.serial('without OTEL_EXPORTER_OTLP_ENDPOINT no OpenTelemetry module loads and nothing is sent', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-no-otel-'));
  const guard = join(dir, 'guard.mjs');
  // refuses every import and require of @opentelemetry/* but the API (prom-client requires it, for
  // exemplars: the no-op API, about 30 small files): a process that loads the SDK, an exporter or an
  // instrumentation fails to start
  const sdk = `(s) => /@opentelemetry\\/(?!api$)/.test(s)`;
  const hook = `const sdk = ${sdk}; export async function resolve(s, c, next) { if (sdk(s)) throw new Error('OpenTelemetry loaded: ' + s); return next(s, c); }`;
  await writeFile(
    guard,
    `import Module, { register } from 'node:module';
const load = Module._load;
const sdk = ${sdk};
Module._load = function (request, ...rest) {
  if (sdk(String(request))) throw new Error('OpenTelemetry loaded: ' + request);
  return load.call(this, request, ...rest);
};
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));
`,
  );
  const guarded = { NODE_OPTIONS: `--import=${guard}` };
  await t.throwsAsync(spawnServe(app.dbUrl, { ...guarded, OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl }), { message: /OpenTelemetry loaded/ }, 'the guard works');
  const before = posts.length;
  const { serve, worker } = await submitThroughProcesses({ ...guarded, OTEL_EXPORTER_OTLP_ENDPOINT: '' });
  t.is(await serve.stop('SIGTERM'), 0, serve.output());
  t.is(await worker.stop('SIGTERM'), 0, worker.output());
  t.is(posts.length, before, 'nothing reached the collector');
  t.notRegex(serve.output(), /trace_id/);
});
