/**
 * Tracing as the rest of the code sees it (issue 25 §4): a few calls that do nothing until
 * src/shared/tracing-sdk.ts, imported by bin/svc only when OTEL_EXPORTER_OTLP_ENDPOINT is set,
 * installs its hooks. This module imports nothing of OpenTelemetry (types only), so a process without
 * tracing loads none of it and each call below costs one check of an undefined variable.
 */
import type { Span } from '@opentelemetry/api';
import type { IncomingMessage, Server } from 'node:http';

/** What the SDK module provides once tracing is on. */
export interface TracingHooks {
  /** The W3C traceparent of the active span (undefined: none, or not sampled). */
  traceparent(): string | undefined;
  /** Runs `work` inside a new span named `name` (child of the active one), ending it with work's outcome. */
  inSpan<T>(name: string, attributes: Record<string, string | number>, work: () => Promise<T>): Promise<T>;
  /** Runs `work` inside a consumer span whose parent is the stored `traceparent` (an outbox row's). */
  resumed<T>(traceparent: string | null, name: string, attributes: Record<string, string | number>, work: () => Promise<T>): Promise<T>;
  /** Runs each request of `listener` inside its own server span (the child of an incoming traceparent). */
  traceListener(listener: Server): void;
  /** Ends the server span of `req`, named by the route's template (never the URL), with the answer's status. */
  endRequest(req: IncomingMessage, method: string, routeTemplate: string, status: number): void;
  /** trace_id and span_id of the server span of `req`, for its access line; undefined without one. */
  requestLogFields(req: IncomingMessage): { trace_id: string; span_id: string } | undefined;
  /** trace_id and span_id of the active span, for a log line; undefined without one. */
  logFields(): { trace_id: string; span_id: string } | undefined;
  /** Ends tracing: the spans held are exported (bounded by the caller's shutdown deadline). */
  shutdown(): Promise<void>;
  /** The active span (tests and diagnostics). */
  active(): Span | undefined;
}

let hooks: TracingHooks | undefined;

/** Installs the SDK's hooks (tracing-sdk.ts, once). */
export function installTracing(installed: TracingHooks): void {
  hooks = installed;
}

export function tracingOn(): boolean {
  return hooks !== undefined;
}

/** The traceparent to store with work done later (an outbox row), or null. */
export function currentTraceparent(): string | null {
  return hooks?.traceparent() ?? null;
}

/** `work` inside a span named `name` when tracing is on; `work` itself otherwise. */
export function inSpan<T>(name: string, attributes: Record<string, string | number>, work: () => Promise<T>): Promise<T> {
  return hooks ? hooks.inSpan(name, attributes, work) : work();
}

/** `work` inside a span continuing the trace of `traceparent` when tracing is on; `work` itself otherwise. */
export function resumedSpan<T>(traceparent: string | null, name: string, attributes: Record<string, string | number>, work: () => Promise<T>): Promise<T> {
  return hooks ? hooks.resumed(traceparent, name, attributes, work) : work();
}

/** With tracing on: every request `listener` receives runs inside a server span (ended by endRequestSpan). */
export function traceListener(listener: Server): void {
  hooks?.traceListener(listener);
}

/** Ends the server span of `req` (tracing on), named `<method> <route template>`, with its status. */
export function endRequestSpan(req: IncomingMessage, method: string, routeTemplate: string, status: number): void {
  hooks?.endRequest(req, method, routeTemplate, status);
}

/** The ids of the server span of `req` for its access line; undefined when tracing is off or it has none. */
export function requestTraceFields(req: IncomingMessage): { trace_id: string; span_id: string } | undefined {
  return hooks?.requestLogFields(req);
}

/** pino's mixin while tracing is on: the active span's ids on every line. */
export function traceLogFields(): Record<string, string> {
  return hooks?.logFields() ?? {};
}

/** Exports what is held and stops tracing; nothing when tracing is off. */
export async function shutdownTracing(): Promise<void> {
  const h = hooks;
  hooks = undefined;
  await h?.shutdown();
}
