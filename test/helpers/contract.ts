/**
 * The OpenAPI contract (issue 26 §5): the responses the tests receive on documented routes must
 * match the schema the served document gives for their status. A test app records each answer of an
 * `api` route (method, route template, status, JSON body) when SVC_CONTRACT_DIR names a folder (one
 * file per test process, appended); checkContract() validates the samples against the document with
 * ajv. The whole suite's run (run-tests.ts) checks every sample after ava; test/http/openapi.test.ts
 * checks its own. Recording lives in the test app only: production requests validate nothing.
 */
import type { Request, Server } from '@hapi/hapi';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import AjvDraft04 from 'ajv-draft-04';

// a CommonJS module: its class is the default export's `default`
const Ajv = AjvDraft04.default;

export interface Sample {
  method: string;
  /** the route template, e.g. /api/resource/{doctype} */
  route: string;
  status: number;
  body: unknown;
}

/** A JSON answer's body as the client reads it (dates as text, undefined fields gone); undefined for files and streams. */
function jsonBody(request: Request): unknown {
  const response = request.response as { source?: unknown; variety?: string; headers?: Record<string, unknown> } | null;
  if (!response || response.variety !== 'plain') return undefined;
  const type = String(response.headers?.['content-type'] ?? 'application/json');
  const source = response.source;
  if (!type.includes('json') || source === null || source === undefined || Buffer.isBuffer(source)) return undefined;
  if (typeof source === 'string') {
    try {
      return JSON.parse(source) as unknown;
    } catch {
      return undefined;
    }
  }
  return JSON.parse(JSON.stringify(source)) as unknown;
}

/** Records the answers of the server's `api` routes: into `into`, or appended to `file` (one JSON line each). */
export function recordResponses(server: Server, target: { into?: Sample[]; file?: string }): void {
  server.events.on('response', (request) => {
    if (!request.route.settings.tags?.includes('api') || !request.response) return;
    const body = jsonBody(request);
    if (body === undefined) return;
    const status = (request.response as { statusCode: number }).statusCode;
    const sample: Sample = { method: request.method, route: request.route.path, status, body };
    target.into?.push(sample);
    if (target.file) appendFileSync(target.file, `${JSON.stringify(sample)}\n`);
  });
}

/** The recorder of the whole suite's run: on when SVC_CONTRACT_DIR is set. */
export function recordForSuite(server: Server): void {
  const dir = process.env.SVC_CONTRACT_DIR;
  if (dir) recordResponses(server, { file: join(dir, `${process.pid}.jsonl`) });
}

/** Every sample written under SVC_CONTRACT_DIR. */
export function readSamples(dir: string): Sample[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Sample),
    );
}

type Json = Record<string, unknown>;
const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

export interface ContractReport {
  /** "METHOD route status" of each sample checked, once */
  checked: string[];
  /** one line per mismatch: the sample, the schema's complaint */
  mismatches: string[];
}

/** Validates each sample of a documented operation against the schema of its status (OpenAPI 3.0 schemas are draft-04 plus `nullable`). */
export function checkContract(document: Json, samples: Sample[]): ContractReport {
  const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: false, validateFormats: false });
  ajv.addSchema(document, 'openapi.json');
  const paths = document.paths as Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;
  const checked = new Set<string>();
  const mismatches = new Set<string>();
  const validators = new Map<string, ReturnType<typeof ajv.compile>>();
  for (const sample of samples) {
    const method = sample.method.toLowerCase();
    const operation = paths[sample.route]?.[method];
    if (!operation) continue; // not documented (pages, the fallback)
    const id = `${sample.method.toUpperCase()} ${sample.route} ${sample.status}`;
    checked.add(id);
    const status = String(sample.status);
    const response = operation.responses?.[status] ?? operation.responses?.default;
    if (!response) {
      mismatches.add(`${id}: status ${status} is not documented`);
      continue;
    }
    if (!response.content?.['application/json']?.schema) continue; // a documented answer without a JSON body
    const ref = `openapi.json#/${pointer('paths', sample.route, method, 'responses', response === operation.responses?.[status] ? status : 'default', 'content', 'application/json', 'schema')}`;
    let validate = validators.get(ref);
    if (!validate) validators.set(ref, (validate = ajv.compile({ $ref: ref })));
    if (!validate(sample.body)) mismatches.add(`${id}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(sample.body).slice(0, 300)}`);
  }
  return { checked: [...checked].sort(), mismatches: [...mismatches] };
}
