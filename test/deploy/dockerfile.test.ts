/**
 * The Dockerfile's runtime stage reproduced without a container runtime (issue 25 §5): the files its
 * COPY lines name (the build stage's output taken from this checkout's build) go into a clean folder,
 * its RUN lines run there (`npm ci --omit=dev --omit=optional --ignore-scripts`, from the npm cache
 * when it can), and from that folder alone, with the image's ENV and ENTRYPOINT, the built
 * `svc serve` answers /api/method/ping and `svc worker` turns ready on its operations port. The test
 * reads the Dockerfile, so a line added there is followed here (or fails as not understood).
 * One install per file: it takes a minute or two, most of it the registry and the disk.
 */
import test from 'ava';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { builtinModules } from 'node:module';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../../src/config/index.js';
import { createTestDatabase } from '../helpers/db.js';
import { eventually } from '../helpers/eventually.js';
import { importsOf, sources } from '../helpers/sources.js';

const exec = promisify(execFile);

interface Stage {
  name: string;
  copies: { from?: string; sources: string[]; target: string }[];
  runs: string[];
  env: Record<string, string>;
  entrypoint: string[];
}

/** The stages of the Dockerfile, each with its COPY, RUN, ENV and ENTRYPOINT lines (continuations joined). */
function stages(): Stage[] {
  const lines = readFileSync(join(projectRoot, 'Dockerfile'), 'utf8')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'));
  const result: Stage[] = [];
  for (const line of lines) {
    const [instruction, ...rest] = line.trim().split(/\s+/);
    const args = rest.join(' ');
    if (instruction === 'FROM') result.push({ name: /\bAS (\w+)/i.exec(args)![1], copies: [], runs: [], env: {}, entrypoint: [] });
    const stage = result[result.length - 1];
    if (instruction === 'COPY') {
      const from = /^--from=(\S+)\s+/.exec(args);
      const paths = args.replace(/^--from=\S+\s+/, '').split(/\s+/);
      stage.copies.push({ from: from?.[1], sources: paths.slice(0, -1), target: paths[paths.length - 1] });
    }
    if (instruction === 'RUN') stage.runs.push(args);
    if (instruction === 'ENV') for (const kv of rest) stage.env[kv.split('=')[0]] = kv.split('=')[1];
    if (instruction === 'ENTRYPOINT') stage.entrypoint = JSON.parse(args) as string[];
  }
  return result;
}

const runtime = stages().find((s) => s.name === 'runtime')!;
let folder: string;
let databaseUrl: string;
const children: ChildProcess[] = [];

/** The runtime stage's COPY lines: from the build context (this checkout), or the build stage's /app (this checkout's build). */
async function copyStage(into: string): Promise<void> {
  for (const copy of runtime.copies) {
    if (copy.from && copy.from !== 'build') throw new Error(`COPY --from=${copy.from}: not understood by this test`);
    for (const source of copy.sources) {
      const from = copy.from ? join(projectRoot, source.replace(/^\/app\//, '')) : join(projectRoot, source);
      if (!existsSync(from)) throw new Error(`COPY ${source}: ${from} does not exist (run the build first)`);
      const target = copy.target.endsWith('/') ? join(into, copy.target, source.split('/').pop()!) : join(into, copy.target);
      await cp(from, target, { recursive: true });
    }
  }
}

/** The runtime stage's RUN lines, command by command: npm ci as written (from the cache when it can), mkdir; useradd/chown need root and a container. */
async function runStage(into: string): Promise<string[]> {
  const skipped: string[] = [];
  for (const command of runtime.runs.flatMap((r) => r.split('&&').map((c) => c.trim()))) {
    const [program, ...args] = command.split(/\s+/);
    if (program === 'npm' && args[0] === 'ci')
      await exec('npm', [...args, '--prefer-offline', '--no-audit', '--no-fund'], { cwd: into, env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    else if (program === 'mkdir') await mkdir(join(into, args[args.length - 1].replace(/^\/app\/?/, '')), { recursive: true });
    else skipped.push(program); // npm cache clean (would empty the shared cache), useradd, chown
  }
  return skipped;
}

test.before(async (t) => {
  t.timeout(10 * 60_000, 'npm ci of the runtime stage');
  folder = await mkdtemp(join(tmpdir(), 'svc-image-'));
  await copyStage(folder);
  t.deepEqual(await runStage(folder), ['npm', 'useradd', 'chown'], 'the RUN commands this test cannot reproduce');
  databaseUrl = await createTestDatabase();
});

test.after.always(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  if (folder) await rm(folder, { recursive: true, force: true });
});

/** The image's command `ENTRYPOINT args` in the folder, with its ENV (loopback and free ports here) and random production secrets. */
function startImage(args: string[]): Promise<{ output: () => string; ops: string; api?: string }> {
  const env = {
    PATH: process.env.PATH,
    ...runtime.env,
    ...{ HOST: '127.0.0.1', PORT: '0', SVC_OPS_HOST: '127.0.0.1', SVC_OPS_PORT: '0', SVC_WORKER_OPS_PORT: '0' },
    DATABASE_URL: databaseUrl,
    SVC_SECRET_KEY: randomBytes(48).toString('base64'),
    SVC_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    SMTP_URL: 'smtp://127.0.0.1:1', // nothing is mailed in these tests
  };
  const [program, ...entry] = runtime.entrypoint;
  const child = spawn(program === 'node' ? process.execPath : program, [...entry, ...args], { cwd: folder, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const ops = /operations port on (http:\/\/[\d.:]+)/.exec(out)?.[1];
      if (ops) resolve({ output: () => out, ops, api: /listening on (http:\/\/[\d.:]+)/.exec(out)?.[1] });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`svc ${args.join(' ')} exited with ${code}: ${out}`)));
  });
}

test('what the runtime stage copies is there, and no devDependency or optional package was installed', (t) => {
  for (const path of ['package.json', 'package-lock.json', 'bin/svc', 'config/default.json', 'dist/src/cli/main.js', 'dist/seeds'])
    t.true(existsSync(join(folder, path)), path);
  const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
  for (const name of ['typescript', 'ava', 'kubernetes-models', ...Object.keys(pkg.optionalDependencies)])
    t.false(existsSync(join(folder, 'node_modules', name)), name);
});

test('the compiled sources import at run time only dependencies, which the stage installed (optional ones only when asked for)', (t) => {
  const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
  const builtins = new Set(builtinModules);
  for (const source of [...sources('src'), ...sources('seeds')])
    for (const ref of importsOf(source)) {
      if (ref.typeOnly || ref.target.startsWith('src/') || ref.target.startsWith('seeds/') || ref.target.startsWith('.')) continue;
      const name = ref.target.replace(/^node:/, '');
      if (builtins.has(name) || builtins.has(name.split('/')[0])) continue;
      const where = `${ref.from}:${ref.line} imports ${ref.target}`;
      const pkgName = ref.target
        .split('/')
        .slice(0, ref.target.startsWith('@') ? 2 : 1)
        .join('/'); // nodemailer/lib/… is nodemailer
      if (pkg.optionalDependencies[pkgName]) t.true(ref.dynamic, `${where}: an optional package is imported when needed`);
      else {
        t.truthy(pkg.dependencies[pkgName], `${where}: not a dependency (the image has no devDependencies)`);
        t.true(existsSync(join(folder, 'node_modules', pkgName)), `${where}: installed in the stage`);
      }
    }
});

test('from that folder alone, svc serve answers ping and svc worker turns ready on its operations port', async (t) => {
  const serve = await startImage(['serve']);
  t.truthy(serve.api, serve.output());
  const ping = await fetch(`${serve.api}/api/method/ping`);
  t.is(ping.status, 200);
  t.deepEqual(await ping.json(), { message: 'pong' });
  t.is((await fetch(`${serve.ops}/readyz`)).status, 200);
  const worker = await startImage(['worker']);
  const ready = await eventually(async () => ((await fetch(`${worker.ops}/readyz`)).status === 200 ? true : undefined), { message: worker.output() });
  t.true(ready);
});
