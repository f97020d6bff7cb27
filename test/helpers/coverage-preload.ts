/**
 * Loaded into every node process of a covered test run (`NODE_OPTIONS=--import=…`, set by
 * test/helpers/coverage.ts): V8's precise coverage (call counts, blocks), as NODE_V8_COVERAGE takes it,
 * started before the process loads anything else and written at exit to SVC_TEST_COVERAGE_DIR, in
 * NODE_V8_COVERAGE's file format, for the compiled service only (dist/src). NODE_V8_COVERAGE wrote
 * every script of the process (node's own, node_modules, the tests: 4–8 MB a process, which c8 then
 * read and filtered) and made node parse the source map of every module it loaded; the map of a
 * dist/src file is read by c8 when it reports. A process with no script of dist/src writes no file.
 */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

interface ScriptCoverage {
  url: string;
}

const dir = process.env.SVC_TEST_COVERAGE_DIR;
const covered = process.env.SVC_TEST_COVERAGE_SRC;

if (dir && covered) {
  const prefix = pathToFileURL(covered).href + '/';
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });
  process.on('exit', () => {
    // the inspector answers a session of the process's own thread synchronously: the callback runs
    // before post returns, so the file is written before the process ends
    session.post('Profiler.takePreciseCoverage', (err, taken) => {
      if (err) return;
      const result = (taken.result as ScriptCoverage[]).filter((s) => s.url.startsWith(prefix));
      if (result.length === 0) return;
      const name = `coverage-${process.pid}-${Date.now()}-0.json`;
      writeFileSync(join(dir, name), JSON.stringify({ result }));
    });
  });
}
