/**
 * Log lines a person reads: `npm start` on a developer's terminal shows `12:03:04 INFO  GET
 * /api/method/ping 200 3 ms` instead of JSON objects around its banner. Containers and log
 * collectors (stdout not a terminal, or any environment but development) keep JSON lines.
 * The records are the ones pino wrote (already scrubbed), only re-rendered.
 */
import type pino from 'pino';
import type { Config } from '../config/index.js';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };
/** the fields every line has, shown in its own place rather than as key=value */
const FIXED = new Set(['level', 'time', 'pid', 'msg', 'reqId', 'method', 'path', 'status', 'ms', 'actor', 'hostname']);

/** json or pretty for this process: SVC_LOG_FORMAT, or by default pretty only on a terminal in development. */
export function chooseLogFormat(config: Pick<Config, 'env' | 'logFormat'>, stdoutIsTerminal: boolean): 'json' | 'pretty' {
  if (config.logFormat !== 'auto') return config.logFormat;
  return stdoutIsTerminal && config.env === 'development' ? 'pretty' : 'json';
}

const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** One JSON log line as one readable line (a line that is not JSON is passed on as it is). */
export function prettyLine(line: string): string {
  let r: Record<string, unknown>;
  try {
    r = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = typeof r.time === 'string' ? r.time.slice(11, 19) : '';
  const level = LEVELS[r.level as number] ?? String(r.level);
  const head =
    r.msg === 'request' && r.method
      ? `${text(r.method)} ${text(r.path)} ${text(r.status ?? '-')} ${text(r.ms)} ms${r.actor ? ` ${text(r.actor)}` : ''}`
      : text(r.msg ?? '');
  const rest = Object.entries(r)
    .filter(([k]) => !FIXED.has(k))
    .map(([k, v]) => `${k}=${text(v)}`);
  // one record stays one line: a stack's line breaks are shown as \n
  return `${time} ${level} ${[head, ...rest].join(' ').replace(/\n/g, '\\n')}\n`;
}

/** A destination that writes each line readable to stdout (a terminal: written as it comes, no batching). */
export function prettyStdout(): pino.DestinationStream {
  return {
    write(chunk: string) {
      for (const line of chunk.split('\n')) if (line) process.stdout.write(prettyLine(line));
    },
  };
}
