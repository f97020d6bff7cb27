/**
 * Issue 24 §13: /docs carries a Content-Security-Policy that allows nothing inline and nothing from
 * elsewhere, and Swagger UI works under it: in real headless Chromium (test/helpers/browser.ts) the
 * page renders the API's operations, one opens, and the browser reports no CSP violation.
 * Screenshot: test-artifacts/docs-csp.png.
 */
import test from 'ava';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchBrowser, screenshot } from '../helpers/browser.js';

let app: TestApp;
let browser: Browser;

test.before(async () => {
  app = await startTestApp();
  browser = await launchBrowser();
});
test.after.always(async () => {
  await browser?.close();
  await app?.stop();
});

/** The directives of a policy, by name. */
function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name, values]),
  );
}

test('/docs has a CSP: nothing inline or evaluated, nothing from another origin, no framing', async (t) => {
  const res = await fetch(`${app.url}/docs`);
  t.is(res.status, 200);
  const csp = res.headers.get('content-security-policy') ?? '';
  const d = directives(csp);
  t.deepEqual(d.get('default-src'), ["'none'"], csp);
  t.deepEqual(d.get('script-src'), ["'self'"]);
  t.deepEqual(d.get('connect-src'), ["'self'"]);
  t.deepEqual(d.get('frame-ancestors'), ["'none'"]);
  t.deepEqual(d.get('base-uri'), ["'none'"]);
  t.false(/unsafe-inline|unsafe-eval|\*|https?:/.test(csp), csp);
  const page = await res.text();
  t.notRegex(page, /<script>/, 'no inline script');
  t.regex(page, /<script src="\/docs\/ui\/[^"]+"><\/script>/);
});

test('Swagger UI renders the operations under that CSP with no violation (headless Chromium)', async (t) => {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  try {
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        (window as unknown as { __csp: string[] }).__csp ??= [];
        (window as unknown as { __csp: string[] }).__csp.push(`${e.violatedDirective} ${e.blockedURI}`);
      });
    });
    const res = await page.goto(`${app.url}/docs`);
    t.truthy(res?.headers()['content-security-policy']);
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
    t.true((await page.locator('.opblock').count()) > 20, 'the operations are listed');
    t.regex((await page.locator('.info .title').textContent()) ?? '', /svc API/);
    await page.locator('.opblock-summary').first().click();
    await page.locator('.opblock-body').first().waitFor({ timeout: 10_000 });
    await page.locator('.models, .opblock-body .parameters-container, .opblock-body .responses-wrapper').first().waitFor({ timeout: 10_000 });
    await screenshot(page, 'docs-csp');
    const reported = await page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? []);
    t.deepEqual([...violations, ...reported], []);
  } finally {
    await context.close();
  }
});
