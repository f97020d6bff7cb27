/**
 * compose.yaml holds together without Docker: every host its URLs name is a service of the file
 * (the worker's SMTP host once was not, and it retried forever), every dependency exists, and the
 * environment it gives the containers passes the production config check the image runs under.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { ENV_VARS, loadConfig, projectRoot } from '../../src/config/index.js';

interface Service {
  image?: string;
  build?: unknown;
  environment?: Record<string, string>;
  depends_on?: Record<string, unknown>;
  ports?: string[];
}

const compose = yaml.load(readFileSync(join(projectRoot, 'compose.yaml'), 'utf8')) as { services: Record<string, Service> };
const services = compose.services;

/** The image's own ENV lines (Dockerfile, runtime stage): the compose environment is added to them. */
function imageEnv(): Record<string, string> {
  const dockerfile = readFileSync(join(projectRoot, 'Dockerfile'), 'utf8');
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  return Object.fromEntries([...runtime.matchAll(/^ENV (.+)$/gm)].flatMap((m) => m[1].split(/\s+/).map((kv) => kv.split('=') as [string, string])));
}

test('every host named by a service URL is a service of the file; every dependency exists', (t) => {
  for (const [name, service] of Object.entries(services)) {
    t.true(Boolean(service.image || service.build), `${name} has an image or a build`);
    for (const dependency of Object.keys(service.depends_on ?? {})) t.truthy(services[dependency], `${name} depends on ${dependency}`);
    for (const [key, value] of Object.entries(service.environment ?? {})) {
      if (!/^[a-z]+:\/\//.test(String(value)) || key === 'SVC_BASE_URL') continue; // the public URL names the outside world
      const host = new URL(String(value)).hostname;
      t.truthy(services[host], `${name}: ${key} names host ${host}, which compose.yaml does not define`);
    }
  }
});

test('the worker mails through the Mailpit service, which it waits for, and whose web UI is published', (t) => {
  const smtp = new URL(services.worker.environment!.SMTP_URL);
  const mail = services[smtp.hostname];
  t.regex(mail.image ?? '', /^axllent\/mailpit(:|$)/);
  t.is(smtp.port, '1025'); // Mailpit's SMTP port
  t.truthy(services.worker.depends_on?.[smtp.hostname]);
  t.true(
    (mail.ports ?? []).some((p) => String(p).endsWith(':8025')),
    'the web UI (8025) is reachable from the host',
  );
});

test('the environment compose gives the svc containers is known to the config and passes its production check', (t) => {
  for (const name of ['migrate', 'serve', 'worker']) {
    const env = services[name].environment ?? {};
    t.deepEqual(
      Object.keys(env).filter((k) => !(k in ENV_VARS)),
      [],
      `${name}: variables the config does not read`,
    );
    t.notThrows(() => loadConfig({ ...imageEnv(), ...env }), name);
  }
  t.is(imageEnv().SVC_ENV, 'production');
});
