/**
 * Real headless Chromium for page tests: Debian's `chromium` (apt-get install chromium; .ci/run
 * installs it when missing) driven by playwright-core, which downloads no browser of its own. Found
 * at $SVC_CHROMIUM, /usr/bin/chromium or `chromium` on the PATH; without one the test fails with a
 * message saying how to install it (a browser test never passes by skipping). Screenshots go to
 * test-artifacts/ (ignored by git), kept after the run.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const ARTIFACTS = resolve(process.cwd(), 'test-artifacts');

export function chromiumPath(): string {
  const candidates = [process.env.SVC_CHROMIUM, '/usr/bin/chromium', ...(process.env.PATH ?? '').split(delimiter).map((d) => join(d, 'chromium'))];
  const found = candidates.find((p): p is string => Boolean(p) && existsSync(p!));
  if (!found)
    throw new Error(
      'No Chromium for the browser tests: install Debian’s package (`sudo apt-get install -y chromium`) or set SVC_CHROMIUM to a Chromium binary. Browser tests fail rather than skip.',
    );
  return found;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/** Saves a full-page PNG as test-artifacts/<name>.png; answers its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
