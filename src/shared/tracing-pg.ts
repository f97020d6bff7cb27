/**
 * Statement spans (tracing on): pg's Client.prototype.query wrapped so that a statement run inside a
 * span (an HTTP request, an outbox row) gets a CLIENT span of its own, named by its summary
 * ("SELECT sales_orders"), with its text masked (no literal: no parameter value, no patient data)
 * and cut at QUERY_TEXT_KEPT characters. In place of @opentelemetry/instrumentation-pg, which per
 * statement also reads the connection's parameters into four attributes, sets the unmasked text
 * before a hook could replace it, parses the operation name and times the statement for a duration
 * metric nobody collects, and binds the callback to the context: here a statement costs one cached
 * lookup (its summary and masked text are computed once per text) and one span with three attributes.
 */
import { createRequire } from 'node:module';
import { context, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';

/**
 * The longest statement text a span carries: OTLP's protobuf serializer writes strings character by
 * character, about 10 µs of CPU per KB on this machine, more than the rest of the span; the
 * summary names the statement whatever its length.
 */
export const QUERY_TEXT_KEPT = 1000;

/** SQL text without its literals: a value Sequelize wrote into the statement is replaced by '?'. */
export function maskSqlLiterals(sql: string): string {
  return sql
    .replace(/'(?:[^']|'')*'/g, "'?'")
    .replace(/(?<![$\w.])-?\d+(?:\.\d+)?(?![\w])/g, '?')
    .slice(0, QUERY_TEXT_KEPT);
}

/** "SELECT sales_orders": the statement's first keyword and the first table it names (OpenTelemetry's db.query.summary). */
export function querySummary(sql: string): string {
  const operation = /^\s*([A-Za-z]+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';
  const table = /\b(?:FROM|INTO|UPDATE|JOIN)\s+"?([A-Za-z_][\w.]*)"?/i.exec(sql)?.[1];
  return table ? `${operation} ${table}` : operation;
}

interface Statement {
  /** the span's name: its summary */
  name: string;
  attributes: { 'db.system.name': string; 'db.query.summary': string; 'db.query.text': string };
}

/**
 * Statements by their text: most are parameterised and recur, so each is masked once. Found by a
 * number made of the text's length and nine of its characters, then compared whole: a Map keyed by
 * the text itself hashes every character of a string built anew for each call (Sequelize rewrites
 * named binds each time), 4.5 µs for a 4,000-character statement, where this takes a fraction of one.
 */
const statements = new Map<number, { text: string; statement: Statement }[]>();
const KEPT = 1000;
/** texts of one key kept at most (the same length and sampled characters), newest first */
const PER_KEY = 8;
let kept = 0;

function keyOf(sql: string): number {
  const n = sql.length;
  let key = n;
  for (let i = 0; i < 9; i++) key = (Math.imul(key, 31) + sql.charCodeAt(Math.floor(((n - 1) * i) / 8))) | 0;
  return key;
}

function statementOf(sql: string): Statement {
  const key = keyOf(sql);
  let texts = statements.get(key);
  const found = texts?.find((t) => t.text === sql);
  if (found) return found.statement;
  if (kept >= KEPT) {
    statements.clear(); // statements with literals written in do not recur: start over
    kept = 0;
    texts = undefined;
  }
  const summary = querySummary(sql);
  const statement = { name: summary, attributes: { 'db.system.name': 'postgresql', 'db.query.summary': summary, 'db.query.text': maskSqlLiterals(sql) } };
  if (!texts) statements.set(key, (texts = []));
  texts.unshift({ text: sql, statement });
  if (texts.length > PER_KEY) texts.pop();
  else kept += 1;
  return statement;
}

/** The masked text of `sql` (cached). */
export function maskedSql(sql: string): string {
  return statementOf(sql).attributes['db.query.text'];
}

function ended(span: Span, err: unknown): void {
  if (err) {
    span.recordException(err instanceof Error ? { name: err.name, message: err.message } : String(err));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

type Query = (this: unknown, ...args: unknown[]) => unknown;

/** Wraps pg's Client.prototype.query (once): statements under an active span get their own span from `tracer`. */
export function traceStatements(tracer: Tracer): void {
  const pg = createRequire(import.meta.url)('pg') as { Client: { prototype: { query: Query } } };
  const proto = pg.Client.prototype;
  const original = proto.query;
  proto.query = function query(this: unknown, ...args: unknown[]): unknown {
    const parent = context.active();
    const config = args[0] as string | { text?: unknown; submit?: unknown } | undefined;
    const text = typeof config === 'string' ? config : config?.text;
    // no parent span (a worker's poll) or a Submittable (COPY): not traced
    if (typeof text !== 'string' || trace.getSpan(parent) === undefined || typeof (config as { submit?: unknown }).submit === 'function') {
      return original.apply(this, args);
    }
    const statement = statementOf(text);
    const span = tracer.startSpan(statement.name, { kind: SpanKind.CLIENT, attributes: statement.attributes }, parent);
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = function (this: unknown, err: unknown, result: unknown) {
        ended(span, err);
        return (callback as Query).call(this, err, result);
      };
      return original.apply(this, args);
    }
    const result = original.apply(this, args) as Promise<unknown> | undefined;
    if (typeof result?.then !== 'function')
      span.end(); // a config object with its own callback: not used here
    else
      result.then(
        () => ended(span, undefined),
        (err: unknown) => ended(span, err),
      );
    return result;
  };
}
