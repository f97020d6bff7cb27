/**
 * The OpenTelemetry SDK of a long-running process (issue 25 §4). Imported by bin/svc, only when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set and before the CLI loads anything else, so the instrumentations
 * are in place before pg, Hapi and undici are used. Spans: HTTP requests (instrumentation-http, named
 * by the Hapi route template), database statements (instrumentation-pg, only inside a request or an
 * outbox row, with string and number literals masked: no parameter values, no patient data), outgoing
 * HTTP (instrumentation-undici) under the manual spans of partner calls and vendor webhooks, and one
 * span per outbox row, the child of the span that enqueued it (its stored traceparent).
 * Export: OTLP over HTTP, JSON, batched; `shutdownTracing` flushes it within the shutdown deadline.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import { getRPCMetadata, RPCType, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, ParentBasedSampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-node';
import { installTracing } from './tracing.js';

/** The operations port's paths: probes and scrapes are not traced. */
const UNTRACED_PATHS = /^\/(livez|readyz|metrics)(\?|$)/;

/** SQL text without its literals: a value Sequelize wrote into the statement is replaced by '?'. */
export function maskSqlLiterals(sql: string): string {
  return sql
    .replace(/'(?:[^']|'')*'/g, "'?'")
    .replace(/(?<![$\w.])-?\d+(?:\.\d+)?(?![\w])/g, '?')
    .slice(0, 4000);
}

function sampleRatio(): number {
  const ratio = Number(process.env.OTEL_TRACES_SAMPLER_ARG ?? 1);
  return Number.isFinite(ratio) ? Math.min(1, Math.max(0, ratio)) : 1;
}

/** Runs `work` in `span` (in its context), recording its failure, ending the span either way. */
async function runIn<T>(span: Span, parent: Context, work: () => Promise<T>): Promise<T> {
  try {
    return await context.with(trace.setSpan(parent, span), work);
  } catch (err) {
    span.recordException(err instanceof Error ? { name: err.name, message: err.message } : String(err));
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw err;
  } finally {
    span.end();
  }
}

/** Starts the SDK (once per process); `role` names the process in the resource. */
export function startTracing(role: string): void {
  const provider = new NodeTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME || 'svc', 'svc.role': role })),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(sampleRatio()) }),
    // OTLPTraceExporter reads OTEL_EXPORTER_OTLP_ENDPOINT (and _HEADERS) itself and posts JSON to <endpoint>/v1/traces
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.test(req.url ?? ''),
        ignoreOutgoingRequestHook: () => true, // outgoing calls go through undici
      }),
      new PgInstrumentation({
        requireParentSpan: true, // the worker's polls and claims are not traces of their own
        enhancedDatabaseReporting: false,
        requestHook: (span, info) => span.setAttribute('db.query.text', maskSqlLiterals(info.query.text)),
      }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
    ],
  });
  const tracer = trace.getTracer('svc');
  installTracing({
    traceparent() {
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      return carrier.traceparent;
    },
    inSpan: (name, attributes, work) => runIn(tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }), context.active(), work),
    resumed(traceparent, name, attributes, work) {
      const parent = traceparent ? propagation.extract(context.active(), { traceparent }) : context.active();
      return runIn(tracer.startSpan(name, { kind: SpanKind.CONSUMER, attributes }, parent), parent, work);
    },
    nameRequest(method, routeTemplate) {
      const metadata = getRPCMetadata(context.active());
      if (metadata?.type === RPCType.HTTP) metadata.route = routeTemplate; // instrumentation-http sets http.route from it at the end
      trace.getActiveSpan()?.updateName(`${method} ${routeTemplate}`);
    },
    logFields() {
      const ids = trace.getActiveSpan()?.spanContext();
      return ids ? { trace_id: ids.traceId, span_id: ids.spanId } : undefined;
    },
    shutdown: () => provider.shutdown(),
    active: () => trace.getActiveSpan(),
  });
}
