/**
 * Where partner calls may go. Spec: "Sandbox orders are never fulfilled or charged"; issue 12: "in
 * sandbox mode every connector talks to its simulator". Enforced, not trusted, at three points:
 * - config: env sandbox forces `partners.simulatorsOnly` (loadConfig refuses it off);
 * - `svc partner-credentials set`: with simulatorsOnly, a partner URL must be a loopback address
 *   (127.0.0.0/8, ::1, localhost); in production it must be https;
 * - every partner call: with simulatorsOnly, the partner HTTP client resolves the host itself and
 *   refuses any address that is not loopback, an address literal included (so a name that resolves
 *   elsewhere, an IP written into a URL that skipped the URL check, or credentials
 *   copied from production into the sandbox's database, cannot reach a real partner); the partner
 *   order is then left "awaiting configuration", visibly, and nothing is sent.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import type { buildConnector } from 'undici';
import type { Undici } from '../shared/undici.js';
import type { Config } from '../config/index.js';

const LOOPBACK_NAMES = new Set(['localhost', 'localhost.']);

/** A loopback address literal (or localhost). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (LOOPBACK_NAMES.has(h)) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./.test(h);
  return false;
}

/** Why a partner base URL may not be used in this environment, or undefined when it may. */
export function partnerUrlProblem(config: Pick<Config, 'env' | 'partners'>, raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${raw} is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${raw} must be an http(s) URL`;
  if (url.username || url.password) return 'a partner URL must not carry credentials (set them as fields)';
  if (config.partners.simulatorsOnly && !isLoopbackHost(url.hostname)) {
    return `${url.host} is not a loopback simulator: ${config.env === 'sandbox' ? 'a sandbox' : 'this service (SVC_PARTNER_SIMULATORS_ONLY)'} never calls a real partner`;
  }
  if (config.env === 'production' && url.protocol !== 'https:') return `${raw} must use https in production`;
  return undefined;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

function notSimulator(hostname: string, address: string | undefined): Error {
  return Object.assign(new Error(`refused: ${hostname} resolves to ${address ?? 'nothing'}, not a loopback simulator`), {
    code: 'ERR_SVC_NOT_SIMULATOR',
  });
}

/** A socket lookup that lets only loopback addresses through (the partner agent's, when simulatorsOnly). */
export function loopbackOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses;
    const bad = list.find((a) => !isLoopbackHost(a.address));
    if (bad || list.length === 0) return callback(notSimulator(hostname, bad?.address), []);
    if (options.all) return callback(null, list);
    return callback(null, list[0].address, list[0].family);
  });
}

/**
 * The partner agent's connector when simulatorsOnly: a host name goes through loopbackOnlyLookup, and
 * an address literal, which a socket connects to without any lookup, is checked here itself.
 */
export function loopbackOnlyConnector(undici: Undici, timeout: number): buildConnector.connector {
  const connect = undici.buildConnector({ timeout, lookup: loopbackOnlyLookup });
  return (options, callback) => {
    const host = options.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0 && !isLoopbackHost(host)) return callback(notSimulator(options.hostname, host), null);
    return connect(options, callback);
  };
}
