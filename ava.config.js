// ava's settings (run through `npm test`, test/helpers/run-tests.ts). A JavaScript file rather than
// package.json's "ava" key because of sortTestFiles, a function: the files that take longest start
// first. ava runs `concurrency` files at a time in its list's order; in alphabetical order a long
// file that starts late ends the run alone, on one core of two. Why these files and the cost
// measured: docs/decisions.md, "The test suite's time".

/**
 * The longest test files, longest first (as measured in docs/decisions.md): chains of child processes
 * (long-running `svc` commands, the README's blocks, serve and worker, terminals, npm ci, an embedded
 * PostgreSQL), the browser pages and the OpenAPI fuzzing. A file missing here only starts in its alphabetical turn; nothing
 * else depends on this list.
 */
const LONGEST_FIRST = [
  'test/cli/examples.test.ts',
  'test/docs/readme.test.ts',
  'test/http/openapi-fuzz.test.ts',
  'test/app/ops-port.test.ts',
  'test/cli/pty.test.ts',
  'test/deploy/dockerfile.test.ts',
  'test/cli/imports.test.ts',
  'test/db/embedded-private.test.ts',
  'test/webhooks/workers.test.ts',
  'test/integrations/portal-browser.test.ts',
  'test/db/db-restart.test.ts',
  'test/shared/tracing.test.ts',
  'test/http/docs-browser.test.ts',
  'test/fulfilment/exactly-once.test.ts',
  'test/integrations/portal-orders.test.ts',
  'test/app/shutdown-db-restart.test.ts',
  'test/fulfilment/five-partners.e2e.test.ts',
  'test/vendor-api/crash-idempotency.test.ts',
  'test/vendor-api/products.test.ts',
  'test/http/home.test.ts',
  'test/sales/customer-invite.test.ts',
  'test/cli/operator-flow.test.ts',
  'test/docs/demo-partners.test.ts',
  'test/cli/keys-rotate.test.ts',
];

/** The file's place in LONGEST_FIRST (ava gives absolute paths), after the list when it is not there. */
function rank(file) {
  const at = LONGEST_FIRST.findIndex((f) => file.endsWith(`/${f}`));
  return at === -1 ? LONGEST_FIRST.length : at;
}

export default {
  files: ['test/**/*.test.ts'],
  typescript: {
    rewritePaths: { 'test/': 'dist/test/' },
    compile: false,
  },
  timeout: '3m',
  workerThreads: false,
  concurrency: 3,
  sortTestFiles: (a, b) => rank(a) - rank(b) || a.localeCompare(b),
};
