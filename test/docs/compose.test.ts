/**
 * compose.yaml holds together without Docker (issue 25 §5): `--scale serve=3` works (no svc process
 * publishes a host port; a pinned reverse proxy whose config is in the repository publishes 8000 and
 * balances over the replicas), every long-running service restarts, every service has resource
 * limits and a pinned image, every role a health check, and no secret is written in the file: they
 * are required variables, and the environment compose builds from generated values passes the
 * production config check the image runs under, while the examples' values do not.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { ENV_VARS, loadConfig, projectRoot } from '../../src/config/index.js';

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  restart?: string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  deploy?: { resources?: { limits?: { cpus?: string; memory?: string } } };
}

const read = (file: string) => readFileSync(join(projectRoot, file), 'utf8');
const services = (yaml.load(read('compose.yaml')) as { services: Record<string, Service> }).services;
const SVC = ['migrate', 'serve', 'worker'];
const LONG_RUNNING = ['postgres', 'mail', 'serve', 'worker', 'proxy'];

/** Compose's interpolation of `${NAME}`, `${NAME:-default}` and `${NAME:?message}` (the forms the file uses). */
function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, op?: string, arg?: string) => {
    if (vars[name]) return vars[name];
    if (op === '?') throw new Error(`required variable ${name} is missing a value: ${arg}`);
    return op === '-' ? (arg ?? '') : '';
  });
}

function environmentOf(name: string, vars: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(services[name].environment ?? {}).map(([k, v]) => [k, interpolate(String(v), vars)]));
}

/** The image's own ENV lines (Dockerfile, runtime stage): the compose environment is added to them. */
function imageEnv(): Record<string, string> {
  const runtime = read('Dockerfile').slice(read('Dockerfile').lastIndexOf('\nFROM '));
  return Object.fromEntries([...runtime.matchAll(/^ENV (.+)$/gm)].flatMap((m) => m[1].split(/\s+/).map((kv) => kv.split('=') as [string, string])));
}

/** The values a reader generates as .env.example says (random, of the documented sizes). */
const generated = () => ({
  POSTGRES_PASSWORD: randomBytes(24).toString('hex'),
  SVC_SECRET_KEY: randomBytes(48).toString('base64'),
  SVC_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
});

test('every host named by a service URL is a service of the file; every dependency exists', (t) => {
  const vars = generated();
  for (const [name, service] of Object.entries(services)) {
    t.true(Boolean(service.image || service.build), `${name} has an image or a build`);
    for (const dependency of Object.keys(service.depends_on ?? {})) t.truthy(services[dependency], `${name} depends on ${dependency}`);
    for (const [key, value] of Object.entries(environmentOf(name, vars))) {
      if (!/^[a-z]+:\/\//.test(value) || key === 'SVC_BASE_URL') continue; // the public URL names the outside world
      const host = new URL(value).hostname;
      t.truthy(services[host], `${name}: ${key} names host ${host}, which compose.yaml does not define`);
    }
  }
});

test('--scale serve=3: no svc process publishes a host port; a pinned proxy publishes 8000 and balances over the serve replicas', (t) => {
  for (const name of SVC) t.deepEqual(services[name].ports ?? [], [], `${name} publishes no host port`);
  const proxy = services.proxy;
  t.deepEqual(proxy.ports, ['8000:8000']);
  t.truthy(proxy.depends_on?.serve);
  const mount = (proxy.volumes ?? []).find((v) => v.endsWith(':/etc/caddy/Caddyfile:ro'));
  t.truthy(mount, 'the Caddyfile is mounted from the repository');
  const caddyfile = mount!.split(':')[0].replace(/^\.\//, '');
  t.true(existsSync(join(projectRoot, caddyfile)), caddyfile);
  // every replica's address, asked again while the scale changes, in turn
  t.regex(read(caddyfile), /dynamic a serve 8000 \{\s*refresh \d+s\s*\}/);
  t.regex(read(caddyfile), /lb_policy round_robin/);
  // the proxy's fixed address is the one svc believes X-Forwarded-For from
  const address = (yaml.load(read('compose.yaml')) as { services: { proxy: { networks: { svc: { ipv4_address: string } } } } }).services.proxy.networks.svc
    .ipv4_address;
  t.is(services.serve.environment?.SVC_TRUSTED_PROXIES, address);
});

test('restart policies, resource limits and pinned image tags on every service', (t) => {
  for (const name of LONG_RUNNING) t.is(services[name].restart, 'unless-stopped', name);
  t.is(services.migrate.restart, 'no', 'the migration runs once');
  for (const [name, service] of Object.entries(services)) {
    const limits = service.deploy?.resources?.limits;
    t.regex(String(limits?.cpus), /^\d+(\.\d+)?$/, `${name} cpus`);
    t.regex(String(limits?.memory), /^\d+[MG]$/, `${name} memory`);
    // a tag with a version (not latest, not a bare major): repo:1.2.3 or repo:v1.2.3 (a suffix such as -alpine allowed)
    t.regex(service.image ?? '', /^[\w./-]+:v?\d+\.\d+(\.\d+)?(-[\w.]+)?$/, `${name} image pinned`);
  }
  t.regex(services.postgres.image!, /^postgres:16\.\d+/);
  t.regex(services.mail.image!, /^axllent\/mailpit:v\d+\.\d+\.\d+$/);
  const version = (JSON.parse(read('package.json')) as { version: string }).version;
  for (const name of SVC) t.is(services[name].image, `svc:${version}`, `${name}: the image is tagged with the release`);
});

test('a health check per role: serve and worker on the operations port as the image does, pg_isready, the proxy its own', (t) => {
  const dockerfileProbe = read('Dockerfile').match(/^HEALTHCHECK .*? CMD node -e "(.*)"$/m)![1];
  for (const name of ['serve', 'worker']) {
    t.deepEqual(services[name].healthcheck?.test, ['CMD', 'node', '-e', dockerfileProbe], name);
    t.regex(dockerfileProbe, /process\.env\.SVC_OPS_PORT\+'\/readyz'/);
  }
  t.regex(services.postgres.healthcheck!.test.join(' '), /pg_isready -U svc/);
  t.regex(services.proxy.healthcheck!.test.join(' '), /http:\/\/127\.0\.0\.1:8081\/healthz/);
  t.regex(read('deploy/compose/Caddyfile'), /:8081 \{\s*respond \/healthz "ok" 200/);
  t.deepEqual(services.mail.healthcheck?.test, ['CMD', '/mailpit', 'readyz']);
  t.is(services.serve.depends_on?.migrate.condition, 'service_completed_successfully');
  t.is(services.worker.depends_on?.migrate.condition, 'service_completed_successfully');
});

test('no secret is written in the file: each is a required variable, and compose refuses to start without it', (t) => {
  const secrets = { SVC_SECRET_KEY: 'SVC_SECRET_KEY', SVC_ENCRYPTION_KEY: 'SVC_ENCRYPTION_KEY', POSTGRES_PASSWORD: 'POSTGRES_PASSWORD' };
  for (const name of [...SVC, 'postgres']) {
    for (const [key, variable] of Object.entries(secrets)) {
      const value = services[name].environment?.[key];
      if (value !== undefined) t.regex(value, new RegExp(`^\\$\\{${variable}:\\?set ${variable} in \\.env`), `${name}: ${key}`);
    }
    const url = services[name].environment?.DATABASE_URL;
    if (url) t.regex(url, /^postgres:\/\/svc:\$\{POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\/svc$/);
  }
  t.throws(() => environmentOf('serve', {}), { message: /required variable \w+ is missing a value: set \w+ in \.env/ });
  // .env.example names every required variable, with no value to copy
  const example = read('.env.example');
  for (const variable of Object.values(secrets)) t.regex(example, new RegExp(`^${variable}=$`, 'm'));
  t.true(read('.gitignore').split('\n').includes('.env'), '.env is never committed');
});

test('the environment compose builds from generated secrets passes the production check; the old examples do not', (t) => {
  for (const name of SVC) {
    const env = environmentOf(name, generated());
    t.deepEqual(
      Object.keys(env).filter((k) => !(k in ENV_VARS)),
      [],
      `${name}: variables the config does not read`,
    );
    t.notThrows(() => loadConfig({ ...imageEnv(), ...env }), name);
  }
  t.is(imageEnv().SVC_ENV, 'production');
  // what this file held before its secrets became required variables
  const old = { ...generated(), SVC_SECRET_KEY: 'replace-with-64-random-characters-replace-with-64-random-characters' };
  t.throws(() => loadConfig({ ...imageEnv(), ...environmentOf('serve', old) }), {
    message: /^Invalid setting SVC_SECRET_KEY: an example or placeholder value/,
  });
  const oldKey = { ...generated(), SVC_ENCRYPTION_KEY: 'cmVwbGFjZS13aXRoLTMyLXJhbmRvbS1ieXRlcy0hISE=' };
  t.throws(() => loadConfig({ ...imageEnv(), ...environmentOf('serve', oldKey) }), {
    message: /^Invalid setting SVC_ENCRYPTION_KEY: an example or placeholder value/,
  });
});

test('the worker mails through the Mailpit service, which it waits for, and whose web UI is published', (t) => {
  const smtp = new URL(services.worker.environment!.SMTP_URL);
  const mail = services[smtp.hostname];
  t.regex(mail.image ?? '', /^axllent\/mailpit:/);
  t.is(smtp.port, '1025'); // Mailpit's SMTP port
  t.truthy(services.worker.depends_on?.[smtp.hostname]);
  t.true(
    (mail.ports ?? []).some((p) => String(p).endsWith(':8025')),
    'the web UI (8025) is reachable from the host',
  );
});
