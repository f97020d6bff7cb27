/**
 * The SDK's own cost per span, alone (issue 25 §4): `node dist/bench/tracing-floor.js [spans]` starts
 * the provider src/shared/tracing-sdk.ts builds (its resource, AlwaysOn, BatchSpanProcessor with the
 * SDK's defaults, OTLP/HTTP protobuf) in this process, exporting to a receiver in a child process that
 * counts and discards, and gives the CPU time (user + system, all threads: process.cpuUsage) per span
 * for spans shaped like svc's: `ping`'s request span (three attributes set at its end), a statement
 * span with a 200-character and with a 1,000-character `db.query.text` (the cut, QUERY_TEXT_KEPT), and
 * the request span with the export replaced by a no-op (start, attributes, end and the batch only).
 * Spans are made 100 at a time, then 1 ms of pause, so the batch processor exports as they come
 * (at full speed its 2,048-span queue drops spans, which then cost nothing); the spans the exporter
 * received are counted and the CPU divided by them. Compare with the serve's CPU per `ping`
 * (`npm run bench -- overhead`, or the same machine at the same time).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { context, SpanKind, trace, type Span } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOnSampler, BatchSpanProcessor, NodeTracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-node';

const KINDS = ['ping', 'statement 200', 'statement 1000', 'ping, no export'] as const;
type Kind = (typeof KINDS)[number];

const SINK = `require('node:http').createServer((q, s) => { q.resume(); q.on('end', () => { s.writeHead(200, { 'content-type': 'application/x-protobuf' }); s.end(); }); })
  .listen(0, '127.0.0.1', function () { process.stdout.write(String(this.address().port) + '\\n'); });`;

async function sink(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['-e', SINK], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((r) => child.stdout.once('data', (d: Buffer) => r(d.toString().trim())));
  return { url: `http://127.0.0.1:${port}`, child };
}

const SQL =
  "SELECT ip.price_list_rate, i.item_name FROM item_prices ip JOIN items i ON i.item_code = ip.item_code WHERE i.published AND i.item_name ILIKE '?' AND ip.price_list = '?' ";

/** Counts the spans handed to the exporter (`inner`, or a no-op). */
function counting(inner: SpanExporter | undefined): { exporter: SpanExporter; count: () => number; reset: () => void } {
  let n = 0;
  const exporter: SpanExporter = {
    export(spans: ReadableSpan[], done) {
      n += spans.length;
      if (inner) inner.export(spans, done);
      else done({ code: 0 });
    },
    shutdown: () => inner?.shutdown() ?? Promise.resolve(),
  };
  return { exporter, count: () => n, reset: () => (n = 0) };
}

async function measure(kind: Kind, spans: number, endpoint: string): Promise<number> {
  const counter = counting(kind === 'ping, no export' ? undefined : new OTLPTraceExporter({ url: `${endpoint}/v1/traces` }));
  const provider = new NodeTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': 'svc', 'svc.role': 'serve' })),
    sampler: new AlwaysOnSampler(),
    spanProcessors: [new BatchSpanProcessor(counter.exporter)],
  });
  const tracer = provider.getTracer('svc');
  const parent = trace.setSpan(context.active(), tracer.startSpan('parent'));
  const text = SQL.repeat(10).slice(0, kind === 'statement 200' ? 200 : 1000);
  const attributes = { 'db.system.name': 'postgresql', 'db.query.summary': 'SELECT item_prices', 'db.query.text': text };
  const one = (): void => {
    let span: Span;
    if (kind.startsWith('statement')) span = tracer.startSpan('SELECT item_prices', { kind: SpanKind.CLIENT, attributes }, parent);
    else {
      span = tracer.startSpan('GET', { kind: SpanKind.SERVER }, context.active());
      span.updateName('GET /api/method/ping');
      span.setAttributes({ 'http.request.method': 'GET', 'http.route': '/api/method/ping', 'http.response.status_code': 200 });
    }
    span.end();
  };
  const run = async (n: number) => {
    for (let i = 0; i < n; i += 100) {
      for (let j = 0; j < 100; j++) one();
      await new Promise((r) => setTimeout(r, 1));
    }
    await provider.forceFlush();
  };
  await run(Math.min(spans, 20_000)); // warm-up: JIT
  counter.reset();
  const before = process.cpuUsage();
  await run(spans);
  const used = process.cpuUsage(before);
  await provider.shutdown();
  return (used.user + used.system) / counter.count();
}

const spans = Number(process.argv[2]) || 60_000;
const { url, child } = await sink();
try {
  for (const kind of KINDS) {
    const us = await measure(kind, spans, url);
    process.stdout.write(`${kind}: ${us.toFixed(2)} µs of CPU per span (${spans} spans)\n`);
  }
} finally {
  child.kill();
}
