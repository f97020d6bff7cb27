/**
 * SSRF guard for vendor Webhook URLs (OWASP API7, reliability T21). Checked twice: when a URL is
 * saved (literal addresses, scheme, well-known local names) and when a delivery connects (every
 * address DNS returns, inside the socket's own lookup, so a rebinding name cannot slip past).
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import type { Config } from '../config/index.js';
import { InputError } from '../shared/errors.js';

type GuardConfig = Pick<Config, 'env'> & { webhook: Pick<Config['webhook'], 'allowPrivateTargets'> };

/**
 * IPv4 special-purpose blocks that are not globally reachable (IANA registry), plus multicast and
 * the deprecated 6to4 relay anycast. Node's BlockList matches an IPv4 rule for the IPv4-mapped
 * IPv6 form too (::ffff:10.0.0.1, ::ffff:a00:1), so mapped addresses need no rule of their own.
 */
const V4_BLOCKS: [string, number][] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata)
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast 255.255.255.255
];

/** IPv6 blocks refused whole. */
const V6_BLOCKS: [string, number][] = [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible ::a.b.c.d
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments, Teredo 2001::/32 (tunnels to any IPv4) among them
  ['2001:db8::', 32],
  ['3fff::', 20], // documentation
  ['2002::', 16], // 6to4 (deprecated; embeds any IPv4 address)
  ['5f00::', 16], // SRv6 segment identifiers
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

/** Well-known NAT64 (64:ff9b::/96) carries any IPv4 address: refused where that address would be. */
const NAT64_PREFIX = '64:ff9b::';

function blockList(): BlockList {
  const list = new BlockList();
  for (const [base, bits] of V4_BLOCKS) {
    list.addSubnet(base, bits, 'ipv4');
    list.addSubnet(`${NAT64_PREFIX}${base}`, 96 + bits, 'ipv6');
  }
  for (const [base, bits] of V6_BLOCKS) list.addSubnet(base, bits, 'ipv6');
  return list;
}

const NON_PUBLIC = blockList();

/** True for loopback, private, link-local, carrier-grade NAT, multicast and reserved addresses. */
export function isPrivateAddress(ip: string): boolean {
  // a zone index (fe80::1%eth0) makes BlockList answer false: it is not part of the address
  const address = ip.split('%')[0];
  const family = isIP(address);
  if (family === 0) return true; // not an address at all: refuse
  return NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

function bareHost(hostname: string): string {
  return hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
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
      if (!allowPrivate()) {
        const bad = addresses.find((a) => isPrivateAddress(a.address));
        if (bad || addresses.length === 0) return callback(new RefusedTargetError(`Webhook host ${hostname} resolves to a non-public address`), []);
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
