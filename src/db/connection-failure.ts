/**
 * A database that cannot be reached, in one sentence for an operator: which server (host, port,
 * database, user) from which setting, and why, instead of pg's `connect ECONNREFUSED 127.0.0.1:5999`.
 * The password is never part of it (nor the URL's query, which may carry one).
 */
import { ConnectionError } from 'sequelize';

/** Why a connection failed, by the code of pg's or the socket's error. */
const REASONS: Record<string, string> = {
  ECONNREFUSED: 'nothing accepts connections there (connection refused)',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve (DNS did not answer)',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ETIMEDOUT: 'the connection timed out',
  ECONNRESET: 'the server closed the connection',
  '28P01': 'the server refused the user or its password',
  '28000': 'the server refused this user (pg_hba.conf)',
  '3D000': 'the database does not exist',
  '57P03': 'the server is starting up or shutting down',
  '53300': 'the server has no connection slots left',
};

/** The code of the error or of the error it wraps (Sequelize keeps pg's as `parent`). */
function codeOf(err: unknown): string | undefined {
  const e = err as { code?: unknown; parent?: { code?: unknown }; original?: { code?: unknown } } | undefined;
  const code = e?.parent?.code ?? e?.original?.code ?? e?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The URL's server, user and database, without its password or query. */
export function describeDatabaseUrl(url: string): { host: string; port: string; database: string; safeUrl: string } {
  try {
    const u = new URL(url);
    const host = decodeURIComponent(u.hostname) || 'localhost';
    const port = u.port || '5432';
    const database = decodeURIComponent(u.pathname.slice(1)) || decodeURIComponent(u.username) || 'postgres';
    const user = u.username ? `${u.username}${u.password ? ':***' : ''}@` : '';
    return { host, port, database, safeUrl: `${u.protocol}//${user}${u.host}${u.pathname}` };
  } catch {
    return { host: '(unparsable URL)', port: '?', database: '?', safeUrl: '(unparsable URL)' };
  }
}

/**
 * One sentence when `err` means the database at `url` could not be reached or refused the
 * connection; undefined for any other error (a failed statement, a bug) so it is reported as it is.
 * `source` names where the URL came from (DATABASE_URL, or the embedded database).
 */
export function describeConnectionFailure(err: unknown, url: string, source: string): string | undefined {
  const code = codeOf(err);
  const reason = (code && REASONS[code]) ?? (err instanceof ConnectionError ? err.message || 'the connection failed' : undefined);
  if (!reason) return undefined;
  const { host, port, database, safeUrl } = describeDatabaseUrl(url);
  const fromEnv = source === 'DATABASE_URL';
  const from = fromEnv ? `DATABASE_URL=${safeUrl}` : `${source}; DATABASE_URL is unset`;
  const fix = fromEnv ? 'start PostgreSQL there or correct DATABASE_URL' : 'start it again (npm start) or set DATABASE_URL';
  return `cannot connect to the database "${database}" on ${host}:${port} (${from}): ${reason}; ${fix}`;
}
