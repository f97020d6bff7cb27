/**
 * The commands in the README and in every page under docs/ run as written. The service is started the way
 * `npm start` starts it (`node bin/svc start`, development settings) on an empty database of the
 * test server, which it migrates and seeds itself; every shell block not marked
 * `<!-- readme-test: skip (reason) -->` then runs in bash (`set -euo pipefail`) from the project
 * folder, and must exit 0 and print what its `# → …` comments show.
 * Only the address differs from a reader's terminal: the service listens on a free port, and the
 * test replaces `http://127.0.0.1:8000` (npm start's address) by it. The blocks get the service's
 * DATABASE_URL, so `npx svc …` reaches the same database, as it joins npm start's embedded one.
 * Every curl runs with --fail-with-body, so a 4xx or 5xx fails its block even where no output is shown.
 * The blocks use the installed curl; on a machine without one, the test's stand-in
 * (test/helpers/curl.ts, the options the docs use, held to curl by its own test) is first on their PATH.
 */
import test from 'ava';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../../src/config/index.js';
import { installCurlShim, systemCurl } from '../helpers/curl.js';
import { createEmptyDatabase } from '../helpers/db.js';
import { documentFiles, missingExpected, shellBlocks, type ShellBlock } from '../helpers/markdown.js';
import { spawnSvc, type Child } from '../helpers/processes.js';

const run = promisify(execFile);
const README_URL = 'http://127.0.0.1:8000';
const PREAMBLE = 'set -euo pipefail\ncurl() { command curl --fail-with-body --max-time 30 "$@"; }\n';

/** Read when the file loads: ava wants one test per block declared synchronously. */
function documents(): ShellBlock[] {
  return documentFiles(projectRoot).flatMap((file) => shellBlocks(file, readFileSync(join(projectRoot, file), 'utf8')));
}
const blocks = documents();

let service: Child;
let url: string;
let env: Record<string, string>;
let scratch: string;

test.before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'svc-readme-'));
  env = {
    DATABASE_URL: await createEmptyDatabase(),
    SVC_ENV: 'development', // npm start's environment: demo secrets, cookies without Secure over http
    SVC_MAIL_DIR: join(scratch, 'mail'),
    SVC_FILES_DIR: join(scratch, 'files'),
    SVC_LOG_LEVEL: 'warn',
    SVC_OPS_PORT: '0', // the operations port too: 9464 may be taken on a shared machine
    SVC_DEMO_PARTNERS_PORT: '0', // the demo's partner simulators on free ports (8801–8805 may be taken on a shared machine)
    // `npx svc` installs this checkout into npx's cache, and npm runs a linked folder's prepare script
    // there: a whole tsc into this dist/ (about 60 CPU-s) while other test files load from it. npm ci
    // built dist/ already, as on a reader's machine, so the blocks' npx skips the scripts
    npm_config_ignore_scripts: 'true',
  };
  if (!systemCurl()) {
    const bin = join(scratch, 'bin');
    await mkdir(bin);
    env.PATH = [installCurlShim(bin), process.env.PATH].join(delimiter);
  }
  service = await spawnSvc(['start', '--port', '0'], env, /Press Ctrl-C to stop/, 120_000);
  url = service.output().match(/svc is running at (http:\/\/[\d.:]+)/)![1];
});
test.after.always(async () => {
  await service?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

test.serial('the test starts the service as npm start does, and the blocks have a curl (the installed one, else the stand-in)', async (t) => {
  const pkg = JSON.parse(await readFile(join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  t.is(pkg.scripts.start, 'exec node bin/svc start');
  t.regex(service.output(), /Demo data loaded/);
  const { stdout } = await run('bash', ['-c', 'command -v curl'], { env: { ...process.env, ...env } });
  t.is(stdout.trim(), systemCurl() ?? join(scratch, 'bin', 'curl'));
});

test.serial('the README holds the Try-it commands, and only a few deliberate blocks are exempt', async (t) => {
  const runnable = blocks.filter((b) => !b.skip);
  t.true(
    runnable.some((b) => b.code.includes('/api/resource/Customer') && b.file === 'README.md'),
    'the Try-it block is found and run',
  );
  t.true(
    runnable.every((b) => b.expected.length > 0),
    'every block that runs shows what it prints',
  );
  const skipped = blocks.filter((b) => b.skip);
  t.log(skipped.map((b) => `${b.file}:${b.line} skipped: ${b.skip}`).join('\n'));
  t.true(skipped.length <= 4, 'exempt a block only when it cannot run in a test (install, production, Docker, long-running)');
  // exempt blocks are still valid shell
  for (const block of skipped) await t.notThrowsAsync(run('bash', ['-n', '-c', block.code]), `${block.file}:${block.line}`);
});

// One test per block, in document order (a reader runs them in that order too).
for (const block of blocks.filter((b) => !b.skip)) {
  test.serial(`${block.file}:${block.line} runs as written`, async (t) => {
    const script = PREAMBLE + block.code.replaceAll(README_URL, url);
    let stdout: string;
    try {
      // up to 170 s, inside ava's 3 min: the storefront block starts two simulators and runs two CLI
      // commands through npx, 1 min 41 s on a loaded 2-core machine (it once passed 120 s)
      ({ stdout } = await run('bash', ['-c', script], { cwd: projectRoot, env: { ...process.env, ...env }, timeout: 170_000, maxBuffer: 16 * 1024 * 1024 }));
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      t.fail(`${block.file}:${block.line} exited with ${e.code}\nstdout: ${e.stdout}\nstderr: ${e.stderr}`);
      return;
    }
    const missing = missingExpected(stdout, block.expected);
    t.is(missing, undefined, `${block.file}:${block.line} did not print ${missing}\nstdout: ${stdout}`);
  });
}
