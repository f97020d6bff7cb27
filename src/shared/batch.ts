/**
 * Per-record outcomes of a v1 batch: each record is validated and resolved on its own, so one bad
 * record fails alone; the good ones are then written together in a few set-based statements.
 */
import type Joi from 'joi';
import { DomainError } from './errors.js';
import { findTextProblem, isCleanText } from './text.js';

export interface RecordFailure {
  index: number;
  sku: string | null;
  ok: false;
  status: null;
  error: string;
  error_type: string;
}

export interface RecordSuccess<R> {
  index: number;
  sku: string | null;
  ok: true;
  status: string | null;
  error: null;
  result: R;
}

export type RecordOutcome<R> = RecordSuccess<R> | RecordFailure;

export interface BatchAnswer<R> {
  total: number;
  succeeded: number;
  failed: number;
  results: RecordOutcome<R>[];
}

/** A record that failed before anything was written (error type as the spec's error body names it). */
export class RecordError extends Error {
  constructor(
    message: string,
    readonly errorType = 'ValidationError',
  ) {
    super(message);
  }
}

export function failure(index: number, sku: string | null, err: unknown): RecordFailure {
  if (err instanceof RecordError) return { index, sku, ok: false, status: null, error: err.message, error_type: err.errorType };
  if (err instanceof DomainError) return { index, sku, ok: false, status: null, error: err.message, error_type: err.excType };
  throw err; // an unexpected error is a 500 for the whole call, never a silent per-record failure
}

/**
 * The sku a record names (for outcome matching), whatever alias it used; null when it is not text
 * the service accepts (the answer is stored for idempotent replays, and jsonb refuses NUL).
 */
export function skuOf(raw: unknown): string | null {
  if (!raw || typeof raw !== 'object') return null;
  const r = raw as Record<string, unknown>;
  const v = r.sku ?? r.item_code ?? r.medgrid_item_code ?? r.vendor_product_id;
  if (typeof v === 'number') return String(v);
  return typeof v === 'string' && isCleanText(v) ? v : null;
}

/** The record's first breach of the text rule (shared/text.ts) as its failure, before any schema or database sees it. */
function textFailure(index: number, raw: object): RecordFailure | undefined {
  const problem = findTextProblem(raw);
  return problem ? failure(index, skuOf(raw), new RecordError(`${problem.path}: ${problem.message}`)) : undefined;
}

/**
 * Validates every record with `schema`; invalid ones become failures, valid ones keep their index.
 * `fast`, when given, is tried first: it returns the value Joi would return for a record that is
 * plainly valid, or undefined to let Joi decide (and word the error) for anything else.
 */
export function validateEach<T>(
  records: unknown[],
  schema: Joi.ObjectSchema<T>,
  fast?: (raw: Record<string, unknown>) => T | undefined,
): { valid: { index: number; value: T }[]; failures: RecordFailure[] } {
  const valid: { index: number; value: T }[] = [];
  const failures: RecordFailure[] = [];
  records.forEach((raw, index) => {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
      failures.push(failure(index, null, new RecordError('Each record must be an object')));
      return;
    }
    const refused = textFailure(index, raw);
    if (refused) {
      failures.push(refused);
      return;
    }
    const quick = fast?.(raw as Record<string, unknown>);
    if (quick !== undefined) {
      valid.push({ index, value: quick });
      return;
    }
    const validated = schema.validate(raw, { abortEarly: true, convert: true, stripUnknown: true });
    if (validated.error) failures.push(failure(index, skuOf(raw), new RecordError(validated.error.details[0].message.replace(/"/g, ''))));
    else valid.push({ index, value: validated.value });
  });
  return { valid, failures };
}

export function answer<R>(total: number, outcomes: RecordOutcome<R>[]): BatchAnswer<R> {
  const results = [...outcomes].sort((a, b) => a.index - b.index);
  const succeeded = results.filter((r) => r.ok).length;
  return { total, succeeded, failed: results.length - succeeded, results };
}
