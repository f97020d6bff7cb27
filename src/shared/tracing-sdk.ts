/**
 * The OpenTelemetry SDK of a long-running process (issue 25 §4). Imported by bin/svc, only when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set and before the CLI loads anything else, so the instrumentations
 * are in place before pg and undici are used. Spans: HTTP requests (made here from the API listener
 * and hapi's 'response' event, named by the route template; src/http/server.ts), database statements
 * (./tracing-pg.ts, only inside a request or an outbox row, with string and number literals masked:
 * no parameter values, no patient data), outgoing
 * HTTP (instrumentation-undici) under the manual spans of partner calls and vendor webhooks, and one
 * span per outbox row, the child of the span that enqueued it (its stored traceparent).
 * Export: OTLP over HTTP, batched, protobuf unless OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL says http/json
 * (protobuf, OTLP's default, costs less than half the CPU per span of JSON); `shutdownTracing`
 * flushes it within the shutdown deadline. The active context travels by V8's promise hooks
 * in `svc serve` (./tracing-context.ts, half the CPU of AsyncLocalStorage on Node 20), in the SDK's
 * AsyncLocalStorage manager elsewhere (SVC_TRACING_CONTEXT chooses).
 */
import type { IncomingMessage, Server } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-node';
import { PromiseContextManager } from './tracing-context.js';
import { traceStatements } from './tracing-pg.js';
import { installTracing, type TracingHooks } from './tracing.js';

const SPAN = Symbol('svc.span');
type Traced = IncomingMessage & { [SPAN]?: Span };

/**
 * Server spans of HTTP requests: each request `listener` hands to hapi runs inside a span started on
 * the listener's 'request' event (the child of the request's traceparent, if any), so hapi's whole
 * lifecycle, its database statements and outgoing calls run in its context; hapi's 'response' event
 * ends it (endRequest), named by the route template. Few attributes: method, route, status.
 */
function traceListenerWith(tracer: Tracer, listener: Server): void {
  for (const event of ['request', 'checkContinue'] as const) {
    for (const handler of listener.listeners(event) as ((req: IncomingMessage, ...rest: unknown[]) => void)[]) {
      listener.removeListener(event, handler);
      listener.on(event, (req: Traced, ...rest: unknown[]) => {
        const parent = req.headers.traceparent ? propagation.extract(ROOT_CONTEXT, req.headers) : ROOT_CONTEXT;
        const span = tracer.startSpan(req.method ?? 'HTTP', { kind: SpanKind.SERVER }, parent);
        req[SPAN] = span;
        context.with(trace.setSpan(parent, span), handler, undefined, req, ...rest);
      });
    }
  }
}

function endRequestSpan(req: Traced, method: string, routeTemplate: string, status: number): void {
  const span = req[SPAN];
  if (!span) return;
  span.updateName(`${method} ${routeTemplate}`);
  span.setAttributes({ 'http.request.method': method, 'http.route': routeTemplate, 'http.response.status_code': status });
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** Roots sampled at OTEL_TRACES_SAMPLER_ARG (default 1: every trace); children follow their parent. */
function sampler(): Sampler {
  const ratio = Number(process.env.OTEL_TRACES_SAMPLER_ARG ?? 1);
  const root = !Number.isFinite(ratio) || ratio >= 1 ? new AlwaysOnSampler() : new TraceIdRatioBasedSampler(Math.max(0, ratio));
  return new ParentBasedSampler({ root });
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

/** OTLP over HTTP in the protocol OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or OTEL_EXPORTER_OTLP_PROTOCOL names (default http/protobuf). */
function otlpExporter(): OtlpJsonExporter | OtlpProtobufExporter {
  const protocol = process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || process.env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf';
  // each reads OTEL_EXPORTER_OTLP_ENDPOINT (and _HEADERS) itself and posts to <endpoint>/v1/traces
  return protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtobufExporter();
}

/** The provider: this process's resource, the sampler, and the batched OTLP export. */
function tracerProvider(role: string): NodeTracerProvider {
  return new NodeTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME || 'svc', 'svc.role': role })),
    sampler: sampler(),
    spanProcessors: [new BatchSpanProcessor(otlpExporter())],
  });
}

/** Statement spans (./tracing-pg.ts) and outgoing HTTP (instrumentation-undici), both only under a parent span. */
function instrument(provider: NodeTracerProvider): void {
  traceStatements(provider.getTracer('svc-pg'));
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [new UndiciInstrumentation({ requireParentforSpans: true })],
  });
}

const ids = (span: Span | undefined) => {
  const c = span?.spanContext();
  return c ? { trace_id: c.traceId, span_id: c.spanId } : undefined;
};

/** The hooks src/shared/tracing.ts calls, made with `tracer`. */
function hooksOf(tracer: Tracer, provider: NodeTracerProvider): TracingHooks {
  return {
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
    traceListener: (listener) => traceListenerWith(tracer, listener),
    endRequest: endRequestSpan,
    requestLogFields: (req: Traced) => ids(req[SPAN]),
    logFields: () => ids(trace.getActiveSpan()),
    shutdown: () => provider.shutdown(),
    active: () => trace.getActiveSpan(),
  };
}

/**
 * How the active context travels (SVC_TRACING_CONTEXT): V8's promise hooks in `svc serve`, whose
 * requests are promises throughout; AsyncLocalStorage in the worker and `svc start`, whose stops it
 * keeps within their bound (with promise hooks a worker's stop overran its last second in the tracing
 * test under load: not understood, not risked).
 */
function contextCarrier(role: string): 'promise-hooks' | 'async-local-storage' {
  const chosen = process.env.SVC_TRACING_CONTEXT;
  if (chosen === 'promise-hooks' || chosen === 'async-local-storage') return chosen;
  return role === 'serve' ? 'promise-hooks' : 'async-local-storage';
}

/** Starts the SDK (once per process); `role` names the process in the resource. */
export function startTracing(role: string): void {
  const provider = tracerProvider(role);
  provider.register({
    propagator: new W3CTraceContextPropagator(),
    contextManager: contextCarrier(role) === 'promise-hooks' ? new PromiseContextManager() : undefined, // undefined: AsyncLocalStorage
  });
  instrument(provider);
  installTracing(hooksOf(trace.getTracer('svc'), provider));
}
