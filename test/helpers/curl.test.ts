/**
 * The README test's curl stand-in (test/helpers/curl.ts), run as the docs' blocks run it: through its
 * launcher on the PATH. Each case's expected output and exit code were taken from curl 7.88; where a
 * curl is installed the same cases run through it too, so the expectations cannot drift from curl.
 * Then the README's own session against the real service (so the stand-in is exercised on every
 * machine, including those where the README test uses the real curl).
 */
import test, { type ExecutionContext } from 'ava';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, type TestApp } from './app.js';
import { installCurlShim, systemCurl } from './curl.js';
import { DEMO_PASSWORD } from '../../seeds/foundation.seed.js';

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

let scratch: string;
let standIn: string;
let server: http.Server;
let base: string;
let closedPort: number;
let app: TestApp;

/** Echoes what curl sent, minus the User-Agent (the stand-in says what it is). */
function echo(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
  const { pathname } = new URL(req.url!, 'http://x');
  if (pathname === '/login') {
    res.setHeader('set-cookie', ['sid=abc123; Path=/; HttpOnly; SameSite=Lax', 'sec=s1; Path=/; Secure', 'gone=x; Path=/; Max-Age=0', 'pt=p; Path=/api']);
    return void res.end('ok');
  }
  if (pathname === '/redir') return void res.writeHead(302, { location: '/there?a=1' }).end('moved');
  if (pathname === '/missing') return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"nope"}');
  if (pathname === '/never') return; // answers nothing: --max-time ends it
  const h = req.headers;
  res.setHeader('content-type', 'application/json');
  res.end(
    JSON.stringify({ method: req.method, url: req.url, ct: h['content-type'] ?? null, cookie: h.cookie ?? null, accept: h.accept, x: h['x-a'] ?? null, body }),
  );
}

test.before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'svc-curl-'));
  standIn = join(installCurlShim(scratch), 'curl');
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => echo(req, res, body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  closedPort = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(r));
  app = await startTestApp();
});
test.after.always(async () => {
  server?.closeAllConnections();
  server?.close();
  await app?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const run = (program: string, args: string[]) =>
  new Promise<Result>((resolve) =>
    execFile(program, args, { encoding: 'utf8', timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );

const sent = (fields: Record<string, unknown>) =>
  JSON.stringify({ method: 'GET', url: '/', ct: null, cookie: null, accept: '*/*', x: null, body: '', ...fields });

/** [what, argv (BASE and CLOSED replaced), stdout, exit code] as curl 7.88 gives them. */
const CASES: [string, string[], string, number][] = [
  ['a GET', ['-s', 'BASE/echo'], sent({ url: '/echo' }), 0],
  [
    '-d twice: a form POST',
    ['-s', '-d', 'a=1', '-d', 'b=2', 'BASE/p'],
    sent({ method: 'POST', url: '/p', ct: 'application/x-www-form-urlencoded', body: 'a=1&b=2' }),
    0,
  ],
  [
    '-G with -d and --data-urlencode (name=, =, lower-case %xx, + for space)',
    ['-s', '-G', '-d', 'a=1', '--data-urlencode', 'f=["x y"]', '--data-urlencode', '=z&', 'BASE/q?k=v'],
    sent({ url: '/q?k=v&a=1&f=%5b%22x+y%22%5d&z%26' }),
    0,
  ],
  [
    '-X PUT, -H replacing the content type, a header of its own',
    ['-s', '-X', 'PUT', '-H', 'content-type: application/json', '-H', 'X-A: 1', '-d', '{"a":1}', 'BASE/p'],
    sent({ method: 'PUT', url: '/p', ct: 'application/json', x: '1', body: '{"a":1}' }),
    0,
  ],
  [
    '-o /dev/null -w: the redirect is not followed',
    ['-s', '-o', '/dev/null', '-w', '%{redirect_url}|%{http_code}\\n', 'BASE/redir'],
    'BASE/there?a=1|302\n',
    0,
  ],
  ['--fail-with-body: the body, then exit 22', ['-s', '--fail-with-body', 'BASE/missing'], '{"error":"nope"}', 22],
  ['-f: no body, exit 22', ['-sf', 'BASE/missing'], '', 22],
  ['a closed port: exit 7', ['-s', 'http://127.0.0.1:CLOSED/'], '', 7],
  ['--max-time: exit 28', ['-s', '--max-time', '1', 'BASE/never'], '', 28],
  ['-b with a cookie string', ['-s', '-b', 'a=1; b=2', 'BASE/x'], sent({ url: '/x', cookie: 'a=1; b=2' }), 0],
];

async function checkCases(t: ExecutionContext, program: string): Promise<void> {
  for (const [what, argv, stdout, code] of CASES) {
    const args = argv.map((a) => a.replace('BASE', base).replace('CLOSED', String(closedPort)));
    const r = await run(program, args);
    t.is(r.stdout, stdout.replace('BASE', base), `${program}: ${what}`);
    t.is(r.code, code, `${program}: ${what} (${r.stderr})`);
  }
}

/** -c then -b: the jar's lines (curl's header, HttpOnly marked, an expired cookie dropped) and the cookies sent back, longest path first. */
async function checkJar(t: ExecutionContext, program: string): Promise<void> {
  const jar = join(scratch, `jar-${Math.random().toString(36).slice(2)}`);
  t.is((await run(program, ['-s', '-c', jar, `${base}/login`])).stdout, 'ok');
  const lines = (await readFile(jar, 'utf8')).split('\n');
  t.deepEqual(lines.slice(0, 4), [
    '# Netscape HTTP Cookie File',
    '# https://curl.se/docs/http-cookies.html',
    '# This file was generated by libcurl! Edit at your own risk.',
    '',
  ]);
  t.deepEqual(lines.slice(4).filter(Boolean).sort(), [
    '#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\tabc123',
    '127.0.0.1\tFALSE\t/\tTRUE\t0\tsec\ts1',
    '127.0.0.1\tFALSE\t/api\tFALSE\t0\tpt\tp',
  ]);
  t.is((await run(program, ['-s', '-b', jar, `${base}/api/x`])).stdout, sent({ url: '/api/x', cookie: 'pt=p; sid=abc123; sec=s1' }), `${program}: -b`);
  t.is((await run(program, ['-s', '-b', jar, `${base}/x`])).stdout, sent({ url: '/x', cookie: 'sid=abc123; sec=s1' }), `${program}: path`);
}

test.serial('the stand-in gives what curl 7.88 gives for the options the docs use (and so does an installed curl)', async (t) => {
  await checkCases(t, standIn);
  await checkJar(t, standIn);
  const real = systemCurl();
  if (real) {
    await checkCases(t, real);
    await checkJar(t, real);
  } else t.log('no curl installed: the expectations were taken from curl 7.88');
});

test.serial('the stand-in refuses what it does not do, loudly (exit 2), and reports a refused connection as curl does', async (t) => {
  for (const argv of [['-i', `${base}/x`], ['--location', `${base}/x`], [`${base}/x`, `${base}/y`], [`${base}/[1-2]`], []]) {
    const r = await run(standIn, argv);
    t.is(r.code, 2, argv.join(' '));
    t.regex(r.stderr, /^curl: .*(not supported here|no URL specified)/, argv.join(' '));
  }
  const refused = await run(standIn, [`http://127.0.0.1:${closedPort}/`]);
  t.regex(refused.stderr, new RegExp(`^curl: \\(7\\) Failed to connect to 127\\.0\\.0\\.1 port ${closedPort} after \\d+ ms: Couldn't connect to server\n$`));
});

test.serial('the README’s session against the service: ping, a login into a cookie jar, the session cookie sent back, a 4xx failing the command', async (t) => {
  const jar = join(scratch, 'service-jar');
  t.deepEqual(await run(standIn, ['-s', `${app.url}/api/method/ping`]), { code: 0, stdout: '{"message":"pong"}', stderr: '' });
  const body = JSON.stringify({ usr: 'admin@demo.svc.local', pwd: DEMO_PASSWORD });
  const login = await run(standIn, ['-s', '-c', jar, '-H', 'content-type: application/json', '-d', body, `${app.url}/api/method/login`]);
  t.regex(login.stdout, /^\{"message":"Logged In",.*"csrf_token":"[^"]+"\}$/);
  t.regex(await readFile(jar, 'utf8'), /\n#HttpOnly_127\.0\.0\.1\tFALSE\t\/\t\w+\t\d+\tsid\t\S+\n/);
  const who = await run(standIn, ['-s', '-b', jar, `${app.url}/api/method/frappe.auth.get_logged_user`]);
  t.is(who.stdout, '{"message":"admin@demo.svc.local"}');
  const fields = await run(standIn, ['-s', '-G', '-b', jar, '--data-urlencode', 'fields=["name"]', `${app.url}/api/resource/Customer`]);
  t.regex(fields.stdout, /^\{"data":\[\{"name":"CUST-\d+"\}(,\{"name":"[^"]+"\})*\]\}$/);
  const anonymous = await run(standIn, ['-s', '--fail-with-body', `${app.url}/api/method/frappe.auth.get_logged_user`]);
  t.is(anonymous.code, 22);
  t.regex(anonymous.stdout, /"exc_type":"\w+"/);
});
