/**
 * `svc user list | head -1`: a reader that closes stdout early ends the command quietly (exit 0, no
 * EPIPE stack trace), with real processes and a real pipe.
 */
import test from 'ava';
import { spawn } from 'node:child_process';
import { cliDatabase } from '../helpers/cli.js';

const database = cliDatabase(test);

/** bin/svc with stdout on a pipe whose reader has closed its end before svc writes (head after its line). */
function svcIntoClosedReader(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['bin/svc', ...args], {
    env: { PATH: process.env.PATH, DATABASE_URL: database.url, SVC_ENV: 'test', SVC_LOG_LEVEL: 'silent', USER: 'carol' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stdout.destroy(); // svc opens the database first, so its first line meets a closed pipe
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

test('svc user list into a reader that closed before the first line: exit 0, nothing on stderr', async (t) => {
  const r = await svcIntoClosedReader(['user', 'list']);
  t.is(r.stderr, '');
  t.is(r.code, 0);
});
