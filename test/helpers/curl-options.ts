/**
 * The command line of the test's curl stand-in (test/helpers/curl.ts): curl's options as curl 7.88
 * reads them (short clusters such as -sS, a value attached or in the next argument), the data
 * options' forms, and the CurlError that becomes `curl: (N) …` and the exit code.
 */
import { readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';

export interface CurlIo {
  stdout: Writable;
  stderr: Writable;
  stdin?: Readable;
}

export interface Options {
  urls: string[];
  silent: boolean;
  showError: boolean;
  get: boolean;
  fail?: 'fail' | 'body';
  globoff: boolean;
  method?: string;
  headers: string[];
  data: string[];
  output?: string;
  cookies: string[];
  cookieJar?: string;
  writeOut?: string;
  maxTimeMs?: number;
  userAgent: string;
}

/** An error curl reports as `curl: (code) message` and exits with. */
export class CurlError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export const SUPPORTED = 'see test/helpers/curl.ts for what the test’s curl supports, or install curl';

/** curl's --data-urlencode: unreserved characters kept, space as +, the rest %xx (lower case, as curl 7.88 writes). */
const urlencode = (s: string) =>
  Array.from(Buffer.from(s, 'utf8'))
    .map((b) => (/[A-Za-z0-9._~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : b === 0x20 ? '+' : `%${b.toString(16).padStart(2, '0')}`))
    .join('');

function readData(file: string, io: CurlIo, strip: boolean): string {
  try {
    const text = readFileSync(file === '-' ? 0 : file, 'utf8');
    return strip ? text.replace(/[\r\n]/g, '') : text;
  } catch {
    io.stderr.write(`Warning: Couldn't read data from file "${file}", this makes an empty POST.\n`);
    return '';
  }
}

/** --data-urlencode's five forms: content, =content, name=content, @file, name@file. */
function encodedPart(arg: string, io: CurlIo): string {
  const at = arg.search(/[=@]/);
  if (at === -1) return urlencode(arg);
  const name = arg.slice(0, at);
  const value = arg[at] === '=' ? arg.slice(at + 1) : readData(arg.slice(at + 1), io, false);
  return name ? `${name}=${urlencode(value)}` : urlencode(value);
}

type Flag = (o: Options) => void;
type Valued = (o: Options, value: string, io: CurlIo) => void;

const FLAGS: Record<string, Flag> = {
  s: (o) => (o.silent = true),
  S: (o) => (o.showError = true),
  G: (o) => (o.get = true),
  f: (o) => (o.fail = 'fail'),
  g: (o) => (o.globoff = true),
  'fail-with-body': (o) => (o.fail = 'body'),
};
const LONG_FLAGS: Record<string, string> = { silent: 's', 'show-error': 'S', get: 'G', fail: 'f', globoff: 'g' };

const data = (o: Options, value: string, io: CurlIo) => o.data.push(value.startsWith('@') ? readData(value.slice(1), io, true) : value);
const VALUED: Record<string, Valued> = {
  H: (o, v) => o.headers.push(v),
  d: data,
  'data-raw': (o, v) => o.data.push(v),
  'data-binary': (o, v, io) => o.data.push(v.startsWith('@') ? readData(v.slice(1), io, false) : v),
  'data-urlencode': (o, v, io) => o.data.push(encodedPart(v, io)),
  X: (o, v) => (o.method = v),
  o: (o, v) => (o.output = v),
  b: (o, v) => o.cookies.push(v),
  c: (o, v) => (o.cookieJar = v),
  w: (o, v) => (o.writeOut = v),
  m: (o, v) => (o.maxTimeMs = Number(v) * 1000),
  A: (o, v) => (o.userAgent = v),
};
const LONG_VALUED: Record<string, string> = {
  header: 'H',
  data: 'd',
  'data-ascii': 'd',
  request: 'X',
  output: 'o',
  cookie: 'b',
  'cookie-jar': 'c',
  'write-out': 'w',
  'max-time': 'm',
  'user-agent': 'A',
};

const unknown = (option: string) => new CurlError(2, `option ${option}: is unknown or not supported here (${SUPPORTED})`);

/** One short option cluster (-sS, -HX-A: b, -d value): flags, then at most one option that takes the rest or the next argument. */
function shortCluster(arg: string, next: () => string, o: Options, io: CurlIo): void {
  for (let i = 1; i < arg.length; i++) {
    const c = arg[i];
    if (FLAGS[c] && c.length === 1) FLAGS[c](o);
    else if (VALUED[c]) return VALUED[c](o, i + 1 < arg.length ? arg.slice(i + 1) : next(), io);
    else throw unknown(`-${c}`);
  }
}

/** The options of `argv`; throws a CurlError (exit 2) on what curl or this stand-in does not take. */
export function parseArgs(argv: string[], io: CurlIo): Options {
  const o: Options = {
    urls: [],
    silent: false,
    showError: false,
    get: false,
    globoff: false,
    headers: [],
    data: [],
    cookies: [],
    userAgent: 'curl (svc test stand-in)',
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new CurlError(2, `option ${arg}: requires parameter`);
      return argv[++i];
    };
    if (arg.startsWith('--') && arg.length > 2) {
      const name = arg.slice(2);
      if (FLAGS[name] && name.length > 1) FLAGS[name](o);
      else if (LONG_FLAGS[name]) FLAGS[LONG_FLAGS[name]](o);
      else if (VALUED[name] && name.length > 1) VALUED[name](o, next(), io);
      else if (LONG_VALUED[name]) VALUED[LONG_VALUED[name]](o, next(), io);
      else throw unknown(arg);
    } else if (arg.startsWith('-') && arg.length > 1) shortCluster(arg, next, o, io);
    else o.urls.push(arg);
  }
  if (o.urls.length === 0) throw new CurlError(2, 'no URL specified!');
  if (o.urls.length > 1) throw new CurlError(2, `several URLs are not supported here: one URL at a time (${SUPPORTED})`);
  return o;
}
