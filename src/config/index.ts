import { readFileSync, existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encryptionKeyProblem, secretKeyProblem } from './secret-strength.js';
import { ENV_VARS } from './env-vars.js';
import { configSchema } from './schema.js';
import type { Config, Environment } from './settings.js';

export * from './settings.js';
export { ENV_VARS } from './env-vars.js';
export { isTimeZone } from './schema.js';

/** Project root (two levels above dist/src/config or src/config). */
export const projectRoot = resolve(
  dirname(fileURLToPath(import.meta.url)),
  existsSync(resolve(dirname(fileURLToPath(import.meta.url)), '../../../package.json')) ? '../../..' : '../..',
);

export class ConfigError extends Error {}

const DEFAULT_SECRETS = new Set<string>();

function readJson(file: string): Record<string, unknown> {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
}

function merge(target: Record<string, unknown>, source: Record<string, unknown>): Record<string, unknown> {
  for (const [k, v] of Object.entries(source)) {
    const cur = target[k];
    if (v && typeof v === 'object' && !Array.isArray(v) && cur && typeof cur === 'object' && !Array.isArray(cur))
      merge(cur as Record<string, unknown>, v as Record<string, unknown>);
    else target[k] = v;
  }
  return target;
}

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur = obj;
  for (const p of parts.slice(0, -1)) cur = (cur[p] ??= {}) as Record<string, unknown>;
  cur[parts[parts.length - 1]] = value;
}

function parseEnvValue(name: string, raw: string, type: string): unknown {
  if (type === 'number') {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n)) throw new ConfigError(`Invalid setting ${name}: "${raw}" is not a number`);
    return n;
  }
  if (type === 'boolean') {
    if (!['1', '0', 'true', 'false', 'yes', 'no'].includes(raw.toLowerCase())) throw new ConfigError(`Invalid setting ${name}: "${raw}" is not a boolean`);
    return ['1', 'true', 'yes'].includes(raw.toLowerCase());
  }
  if (type === 'list')
    return raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  return raw;
}

/** Builds the validated, frozen Config from config/*.json and the environment; throws ConfigError naming the bad setting. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const name = (env.SVC_ENV ?? env.NODE_ENV ?? 'development') as Environment;
  if (!['development', 'test', 'production', 'sandbox'].includes(name))
    throw new ConfigError(`Invalid setting SVC_ENV: "${name}" must be development, test, production or sandbox`);
  const dir = resolve(projectRoot, 'config');
  const defaults = readJson(resolve(dir, 'default.json'));
  for (const key of ['secretKey', 'encryptionKey']) DEFAULT_SECRETS.add(String(defaults[key]));
  const raw = merge(merge(defaults, readJson(resolve(dir, `${name}.json`))), { env: name });
  for (const [variable, spec] of Object.entries(ENV_VARS)) {
    const value = env[variable];
    if (value !== undefined && value !== '') setPath(raw, spec.path, parseEnvValue(variable, value, spec.type));
  }
  merge(raw, overrides);
  // host and port are checked by the schema just below: here they are whatever the files and environment hold
  if (raw.baseUrl === undefined || (env.SVC_BASE_URL === undefined && !overrides.baseUrl))
    raw.baseUrl = `http://${raw.host === '0.0.0.0' ? '127.0.0.1' : String(raw.host)}:${String(raw.port)}`;
  const validated = configSchema.validate(raw, { abortEarly: true, convert: true });
  if (validated.error) {
    const { error } = validated;
    const path = error.details[0].path.join('.');
    const variable = Object.entries(ENV_VARS).find(([, s]) => s.path === path || path.startsWith(`${s.path}.`))?.[0]; // list items too
    throw new ConfigError(`Invalid setting ${variable ?? path}: ${error.details[0].message}`);
  }
  const value = validated.value;
  if (value.env === 'production' || value.env === 'sandbox') {
    // examples, placeholders and predictable values too (secret-strength.ts has the rule); never the value itself
    const secretProblem = secretKeyProblem(value.secretKey, DEFAULT_SECRETS);
    if (secretProblem) throw new ConfigError(`Invalid setting SVC_SECRET_KEY: ${secretProblem}`);
    const keyProblem = encryptionKeyProblem(value.encryptionKey, DEFAULT_SECRETS);
    if (keyProblem) throw new ConfigError(`Invalid setting SVC_ENCRYPTION_KEY: ${keyProblem}`);
    if (value.webhook.allowPrivateTargets)
      throw new ConfigError('Invalid setting SVC_WEBHOOK_ALLOW_PRIVATE: private webhook targets are refused in production');
  }
  // a prescription is never sent unchecked in production: the NPI registry must be configured there
  if (value.env === 'production' && !value.nppes.baseUrl)
    throw new ConfigError('Invalid setting SVC_NPPES_URL: the NPI registry check is required in production');
  // spec: sandbox orders are never fulfilled or charged, so a sandbox talks only to simulators
  if (value.env === 'sandbox' && !value.partners.simulatorsOnly)
    throw new ConfigError('Invalid setting SVC_PARTNER_SIMULATORS_ONLY: a sandbox talks only to partner simulators');
  return deepFreeze(value);
}

function deepFreeze<T>(obj: T): T {
  for (const v of Object.values(obj as object)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(obj);
}

/** Server time zone: the spec's sync.orders and created_at are US Eastern. */
export const SERVER_TIME_ZONE = 'America/New_York';
