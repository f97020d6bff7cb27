/**
 * SSRF guard for vendor Webhook URLs (OWASP API7, reliability T21). Checked twice: when a URL is
 * saved (literal addresses, scheme, well-known local names) and when a delivery connects (every
 * address DNS returns, inside the socket's own lookup, so a rebinding name cannot slip past).
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import type { Config } from '../config/index.js';
import { InputError } from '../shared/errors.js';

type GuardConfig = Pick<Config, 'env'> & { webhook: Pick<Config['webhook'], 'allowPrivateTargets'> };

const V4_BLOCKS: [string, number][] = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
];

function v4ToInt(ip: string): number {
  return ip.split('.').reduce((n, part) => (n << 8) + Number(part), 0) >>> 0;
}

function isPrivateV4(ip: string): boolean {
  const n = v4ToInt(ip);
  return V4_BLOCKS.some(([base, bits]) => (n >>> (32 - bits)) === (v4ToInt(base) >>> (32 - bits)));
}

/** Expands an IPv6 address to 8 numbers (handles `::` and a dotted IPv4 tail). */
function v6Words(ip: string): number[] {
  let text = ip.split('%')[0].toLowerCase();
  const dotted = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    const n = v4ToInt(dotted[1]);
    text = text.slice(0, -dotted[1].length) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array(8 - h.length - t.length).fill('0');
  return [...h, ...fill, ...t].map((w) => parseInt(w || '0', 16));
}

function isPrivateV6(ip: string): boolean {
  const w = v6Words(ip);
  const zeroPrefix = w.slice(0, 5).every((x) => x === 0);
  if (zeroPrefix && (w[5] === 0xffff || w[5] === 0)) {
    // IPv4-mapped (::ffff:a.b.c.d) or IPv4-compatible (::a.b.c.d, also :: and ::1)
    if (w[5] === 0 && w[6] === 0 && w[7] <= 1) return true;
    return isPrivateV4(`${w[6] >> 8}.${w[6] & 255}.${w[7] >> 8}.${w[7] & 255}`);
  }
  if (w[0] === 0x64 && w[1] === 0xff9b) return isPrivateV4(`${w[6] >> 8}.${w[6] & 255}.${w[7] >> 8}.${w[7] & 255}`); // NAT64
  if ((w[0] & 0xfe00) === 0xfc00) return true; // unique local fc00::/7
  if ((w[0] & 0xffc0) === 0xfe80) return true; // link-local fe80::/10
  if ((w[0] & 0xff00) === 0xff00) return true; // multicast
  if (w[0] === 0x2001 && w[1] === 0x0db8) return true; // documentation
  return false;
}

/** True for loopback, private, link-local, carrier-grade NAT, multicast and reserved addresses. */
export function isPrivateAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return isPrivateV4(ip);
  if (family === 6) return isPrivateV6(ip);
  return true; // not an address at all: refuse
}

function bareHost(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
}

const LOCAL_NAMES = /(^|\.)(localhost|local|internal|localdomain|home\.arpa)$/;

/** http is acceptable only where private targets are (development and tests). */
function httpAllowed(config: GuardConfig): boolean {
  return config.env === 'development' || config.env === 'test';
}

/**
 * Validates a Webhook URL when it is saved; returns it normalised. Throws InputError (400) for a
 * malformed URL, credentials in it, a non-https scheme outside development/test, or a loopback,
 * private or link-local target unless config.webhook.allowPrivateTargets.
 */
export function validateWebhookUrl(url: string, config: GuardConfig): string {
  let parsed: URL;
  try {
    parsed = new URL(String(url).trim());
  } catch {
    throw new InputError('Webhook URL must be an absolute https:// URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new InputError('Webhook URL must be an absolute https:// URL');
  if (parsed.protocol === 'http:' && !httpAllowed(config)) throw new InputError('Webhook URL must use https');
  if (parsed.username || parsed.password) throw new InputError('Webhook URL must not carry credentials');
  if (parsed.hash) throw new InputError('Webhook URL must not have a fragment');
  if (!config.webhook.allowPrivateTargets) {
    const host = bareHost(parsed.hostname);
    if (isIP(host) ? isPrivateAddress(host) : LOCAL_NAMES.test(host) || !host.includes('.')) {
      throw new InputError('Webhook URL must point to a public address (loopback, private and link-local targets are refused)');
    }
  }
  return parsed.toString();
}

/** The error a refused connection carries; the sender reports it as a refused attempt. */
export class RefusedTargetError extends Error {
  readonly code = 'ERR_SVC_REFUSED_TARGET';
}

/**
 * Checks a URL right before sending (the literal-address part; names are checked by guardedLookup
 * as the socket resolves them). Throws RefusedTargetError.
 */
export function assertSendableUrl(url: string, config: GuardConfig): URL {
  try {
    validateWebhookUrl(url, config);
  } catch (err) {
    throw new RefusedTargetError((err as Error).message);
  }
  return new URL(url);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup replacement for the sockets of the webhook client: refuses private answers. */
export function guardedLookup(allowPrivate: () => boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      if (!allowPrivate()) {
        const bad = list.find((a) => isPrivateAddress(a.address));
        if (bad || list.length === 0) return callback(new RefusedTargetError(`Webhook host ${hostname} resolves to a non-public address`), []);
      }
      if (options.all) return callback(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}
