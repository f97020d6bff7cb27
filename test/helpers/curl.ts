/**
 * A curl for the docs' commands on a machine without one (test/docs/readme.test.ts puts it first on
 * the PATH only when no curl is installed). It does what curl 7.88 does for the options the docs use
 * — -s -S -G -f --fail-with-body -g -H -d --data-raw --data-binary --data-urlencode -X -o -b -c -w
 * -m/--max-time -A — with curl's exit codes (2 usage, 3 bad URL, 6 host unknown, 7 refused, 22 HTTP
 * error with -f, 28 time-out) and `curl: (N) …` messages. Anything else (another option, several
 * URLs, URL globbing) is refused with exit 2 and a line naming this file, so a doc that needs more
 * fails loudly instead of running differently. test/helpers/curl.test.ts holds it to real curl.
 */
import { accessSync, constants, createWriteStream, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { delimiter, join } from 'node:path';
import type { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { cookieHeader, readJar, storeCookie, writeJar, type Cookie } from './curl-cookies.js';
import { CurlError, parseArgs, SUPPORTED, type CurlIo, type Options } from './curl-options.js';

export type { CurlIo } from './curl-options.js';

function targetUrl(o: Options): URL {
  let text = /^[a-z][a-z0-9+.-]*:\/\//i.test(o.urls[0]) ? o.urls[0] : `http://${o.urls[0]}`;
  // a bracketed IPv6 host is no glob; any other [ ] { } is curl's URL globbing, which this client does not do
  if (!o.globoff && /[[\]{}]/.test(text.replace(/^([a-z]+:\/\/)\[[0-9a-f:.]+\]/i, '$1')))
    throw new CurlError(2, `URL globbing ([ ] { }) is not supported here: pass -g or percent-encode them (${SUPPORTED})`);
  if (o.get && o.data.length) text += `${text.includes('?') ? '&' : '?'}${o.data.join('&')}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CurlError(3, 'URL using bad/illegal format or missing URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CurlError(1, `Protocol "${url.protocol.slice(0, -1)}" not supported or disabled in libcurl`);
  return url;
}

/** The request's headers: curl's defaults, then -H's (a header replaces a default, "Name:" removes it). */
function requestHeaders(o: Options, url: URL, jar: Cookie[], body: string | undefined): Record<string, string> {
  const headers = new Map<string, [string, string]>([
    ['user-agent', ['User-Agent', o.userAgent]],
    ['accept', ['Accept', '*/*']],
  ]);
  const cookies = [...o.cookies.filter((c) => c.includes('=')), cookieHeader(jar, url)].filter(Boolean);
  if (cookies.length) headers.set('cookie', ['Cookie', cookies.join('; ')]);
  if (body !== undefined) {
    headers.set('content-type', ['Content-Type', 'application/x-www-form-urlencoded']);
    headers.set('content-length', ['Content-Length', String(Buffer.byteLength(body))]);
  }
  for (const h of o.headers) {
    const colon = h.indexOf(':');
    const semicolon = h.endsWith(';') && colon === -1;
    const name = semicolon ? h.slice(0, -1) : h.slice(0, colon === -1 ? undefined : colon);
    const value = semicolon ? '' : h.slice(colon + 1).trim();
    if (colon === -1 && !semicolon) continue; // curl ignores a header without a colon
    if (!value && !semicolon) headers.delete(name.toLowerCase());
    else headers.set(name.toLowerCase(), [name.trim(), value]);
  }
  return Object.fromEntries(headers.values());
}

interface Outcome {
  status: number;
  location?: string;
  contentType?: string;
  bytes: number;
}

function transferError(err: NodeJS.ErrnoException, url: URL, startedAt: number, bytes: number, timedOut: boolean): CurlError {
  const ms = Date.now() - startedAt;
  if (timedOut) return new CurlError(28, `Operation timed out after ${ms} milliseconds with ${bytes} bytes received`);
  if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') return new CurlError(6, `Could not resolve host: ${url.hostname}`);
  if (err.code === 'ECONNREFUSED')
    return new CurlError(
      7,
      `Failed to connect to ${url.hostname} port ${url.port || (url.protocol === 'https:' ? 443 : 80)} after ${ms} ms: Couldn't connect to server`,
    );
  if (err.code === 'ECONNRESET' && bytes === 0) return new CurlError(52, 'Empty reply from server');
  return new CurlError(56, `Recv failure: ${err.message}`);
}

/** Sends the request; the body goes to `sink` (a file with -o, which is closed at the end) unless -f refuses it. */
function transfer(o: Options, url: URL, jar: Cookie[], sink: () => Writable): Promise<Outcome> {
  const body = o.data.length && !o.get ? o.data.join('&') : undefined;
  const method = o.method ?? (body !== undefined ? 'POST' : 'GET');
  const startedAt = Date.now();
  let bytes = 0;
  let timedOut = false;
  return new Promise((resolve, reject) => {
    const fail = (err: Error) => {
      clearTimeout(timer);
      reject(transferError(err, url, startedAt, bytes, timedOut));
    };
    const req = (url.protocol === 'https:' ? https : http).request(url, { method, headers: requestHeaders(o, url, jar, body), agent: false }, (res) => {
      if (o.cookies.length || o.cookieJar) for (const header of res.headers['set-cookie'] ?? []) storeCookie(jar, header, url);
      const status = res.statusCode ?? 0;
      const out = o.fail === 'fail' && status >= 400 ? undefined : sink();
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        out?.write(chunk);
      });
      res.on('end', () => {
        clearTimeout(timer);
        const location = res.headers.location && status >= 300 && status < 400 ? new URL(res.headers.location, url).href : undefined;
        const done = () => resolve({ status, location, contentType: res.headers['content-type'], bytes });
        if (out && o.output) out.end(done);
        else done();
      });
      res.on('error', fail);
    });
    const timer = o.maxTimeMs
      ? setTimeout(() => {
          timedOut = true;
          req.destroy(new Error('timed out'));
        }, o.maxTimeMs)
      : undefined;
    req.on('error', fail);
    req.end(body);
  });
}

/** -w's text: \n \r \t escapes and the %{variables} the docs use. */
function writeOut(format: string, outcome: Outcome, url: URL, io: CurlIo): string {
  const vars: Record<string, string> = {
    http_code: String(outcome.status).padStart(3, '0'),
    response_code: String(outcome.status).padStart(3, '0'),
    redirect_url: outcome.location ?? '',
    url_effective: url.href,
    content_type: outcome.contentType ?? '',
    size_download: String(outcome.bytes),
  };
  return format
    .replace(/\\([nrt\\])/g, (_, c: string) => ({ n: '\n', r: '\r', t: '\t', '\\': '\\' })[c]!)
    .replace(/%%|%\{([a-z_]+)\}/g, (_all, name?: string) => {
      if (!name) return '%';
      if (name in vars) return vars[name];
      io.stderr.write(`curl: unknown --write-out variable: '${name}'\n`);
      return '';
    });
}

async function perform(o: Options, io: CurlIo): Promise<number> {
  const url = targetUrl(o);
  const jar = o.cookies.filter((c) => !c.includes('=')).flatMap(readJar);
  let file: Writable | undefined;
  const sink = () => (o.output ? (file ??= createWriteStream(o.output)) : io.stdout);
  try {
    const outcome = await transfer(o, url, jar, sink);
    if (o.writeOut) io.stdout.write(writeOut(o.writeOut, outcome, url, io));
    if (o.fail && outcome.status >= 400) throw new CurlError(22, `The requested URL returned error: ${outcome.status}`);
    return 0;
  } finally {
    if (o.cookieJar) writeJar(o.cookieJar, jar);
  }
}

/** Runs curl with `argv` (without the program's name); answers the exit code. */
export async function runCurl(argv: string[], io: CurlIo): Promise<number> {
  let o: Options | undefined;
  try {
    o = parseArgs(argv, io);
    return await perform(o, io);
  } catch (err) {
    if (!(err instanceof CurlError)) throw err;
    if (err.code === 2) io.stderr.write(`curl: ${err.message}\n`);
    else if (!o?.silent || o.showError) io.stderr.write(`curl: (${err.code}) ${err.message}\n`);
    return err.code;
  }
}

/** The first executable `curl` on `path`, if any. */
export function systemCurl(path = process.env.PATH ?? ''): string | undefined {
  return path
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, 'curl'))
    .find((file) => {
      try {
        accessSync(file, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}

/** Writes `dir/curl`, a launcher of this client on the running Node.js; answers the folder to put first on the PATH. */
export function installCurlShim(dir: string): string {
  const bin = fileURLToPath(new URL('./curl-bin.js', import.meta.url));
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  writeFileSync(join(dir, 'curl'), `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(bin)} "$@"\n`, { mode: 0o755 });
  return dir;
}
