/**
 * The sandbox's guards (issue 30, defect 4, and the sandbox URL check's second test), with
 * `SVC_PARTNER_SIMULATORS_ONLY` on as in a sandbox:
 * - at connect time: the partner HTTP agent resolves names through loopbackOnlyLookup, so a partner
 *   URL whose name resolves to a non-loopback address is refused before a socket opens, even where
 *   no URL check ran first (a shipper webhook's resource_url on the partner's production host). The
 *   name is resolved by a stand-in resolver (no DNS here) to 0.0.0.0, which the guard must refuse (it
 *   is no loopback address) but which Linux connects to this host over loopback, where a real HTTP
 *   server counts what reaches it: without the guard the call lands there, and no packet leaves the
 *   machine.
 * - at set time: the credentials service refuses every URL field of every partner that is not a
 *   loopback simulator, however the host is spelt.
 */
import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import { createServer, type Server } from 'node:http';
import { syncBuiltinESMExports } from 'node:module';
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { partnerBudget, partnerLimits } from '../../src/fulfilment/budget.js';
import { PartnerCallError } from '../../src/fulfilment/connector.js';
import { loadPartnerCredentials, setPartnerCredentials } from '../../src/fulfilment/credentials/credentials.service.js';
import { closePartnerAgent, partnerHttp } from '../../src/fulfilment/partner-http.js';
import { PARTNER_KEYS, PARTNER_SPECS as PARTNERS } from '../../src/partners/index.js';
import { resolveShipperEvent } from '../../src/partners/shipper/shipper.webhook.js';
import { ops } from './helpers.js';

/** Names the stand-in resolver answers with the unspecified address (not loopback to the guard; this host to a socket). */
const FAR_NAMES = new Set(['partner.example.test', 'ssapi.shipstation.com']);
const realLookup = dns.lookup;
let app: TestApp;
let server: Server;
let far: string;
let hits = 0;

type Callback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

test.before(async () => {
  far = '0.0.0.0';
  // the stand-in resolver: the far names resolve to 0.0.0.0, the rest as usual
  const standIn = (host: string, options: LookupOptions | Callback, cb?: Callback) => {
    const callback = (typeof options === 'function' ? options : cb)!;
    const opts = typeof options === 'function' ? {} : options;
    if (!FAR_NAMES.has(host)) return (realLookup as (h: string, o: LookupOptions, c: Callback) => void)(host, opts, callback);
    if (opts.all) return callback(null, [{ address: far, family: 4 }]);
    return callback(null, far, 4);
  };
  (dns as { lookup: unknown }).lookup = standIn;
  syncBuiltinESMExports();
  server = createServer((_req, res) => {
    hits++;
    res.setHeader('content-type', 'application/json');
    res.end('{"shipments":[],"total":0,"page":1,"pages":1}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  app = await startTestApp({ env: { SVC_PARTNER_SIMULATORS_ONLY: 'true' } });
});
test.after.always(async () => {
  (dns as { lookup: unknown }).lookup = realLookup;
  syncBuiltinESMExports();
  await closePartnerAgent();
  await new Promise((resolve) => server?.close(resolve));
  await app?.stop();
});

const port = () => (server.address() as { port: number }).port;

test.serial('the server stands where the far name points: reachable there without the guard', async (t) => {
  t.true(app.config.partners.simulatorsOnly, 'the sandbox rule is on');
  const direct = await fetch(`http://${far}:${port()}/probe`);
  t.is(direct.status, 200, 'the far address answers (so a refusal below is the guard, not a dead address)');
  hits = 0;
});

test.serial('connect time: a partner call to a name that resolves off loopback is refused; nothing reaches that address', async (t) => {
  const http = partnerHttp({ partner: 'otcpartner' });
  const err = await t.throwsAsync(http.request({ method: 'GET', url: `http://partner.example.test:${port()}/api/orders` }), { instanceOf: PartnerCallError });
  t.is(err?.kind, 'refused');
  t.regex(err?.message ?? '', /partner\.example\.test resolves to .*not a loopback simulator/);
  t.is(hits, 0, 'no request reached the far address');
});

test.serial('connect time: an address literal off loopback (no lookup happens for it) is refused too; nothing reaches it', async (t) => {
  const http = partnerHttp({ partner: 'otcpartner' });
  for (const host of [far, '[::ffff:0.0.0.0]']) {
    const err = await t.throwsAsync(http.request({ method: 'GET', url: `http://${host}:${port()}/api/orders` }), { instanceOf: PartnerCallError });
    t.is(err?.kind, 'refused', host);
    t.regex(err?.message ?? '', /not a loopback simulator/);
  }
  t.is(hits, 0, 'no request reached the far address');
  const local = await partnerHttp({ partner: 'otcpartner' }).request({ method: 'GET', url: `http://127.0.0.1:${port()}/api/orders` });
  t.is(local.status, 200, 'a loopback literal still connects');
  hits = 0;
});

test.serial('connect time: a shipper resource_url on the production host (past the URL check) is refused, with the marketplace pair never sent', async (t) => {
  await setPartnerCredentials(ops, 'shipper', { base_url: 'http://127.0.0.1:9', api_key: 'sandbox-key', api_secret: 'sandbox-secret' });
  const ctx = {
    credentials: await loadPartnerCredentials('shipper'),
    http: partnerHttp({ partner: 'shipper' }),
    budget: partnerBudget(),
    limits: partnerLimits(),
    signal: AbortSignal.timeout(10_000),
  };
  const event = {
    partner: 'shipper' as const,
    eventId: 'x',
    reference: 'x',
    status: null,
    statusText: 'SHIP_NOTIFY',
    tracking: null,
    rawType: 'SHIP_NOTIFY',
    occurredAt: null,
    // https on the partner's real host passes resourceUrlProblem: the connect-time guard alone stands here
    resolveUrl: `https://ssapi.shipstation.com/shipments?batchId=1`,
  };
  const err = await t.throwsAsync(resolveShipperEvent(event, ctx));
  t.true(err instanceof PartnerCallError && err.kind === 'refused', `refused by the guard (${err?.message})`);
  t.regex(err?.message ?? '', /ssapi\.shipstation\.com resolves to .*not a loopback simulator/);
  t.is(hits, 0);
});

test.serial('set time: every URL field of every partner refuses a host that is not a loopback simulator, however spelt', async (t) => {
  const hosts = [
    'https://api.partner.example.com',
    `http://${far}:8080`,
    'http://127.0.0.1.nip.io',
    'http://localhost.example.com',
    'http://[::2]:80',
    'http://10.0.0.1',
  ];
  for (const partner of PARTNER_KEYS)
    for (const field of PARTNERS[partner].credentials.filter((f) => f.url))
      for (const url of hosts)
        await t.throwsAsync(
          setPartnerCredentials(ops, partner, { [field.name]: url }),
          { message: /is not a loopback simulator/ },
          `${partner}.${field.name} = ${url}`,
        );
  for (const url of ['http://127.0.0.1:4010', 'http://127.9.9.9:4010', 'http://localhost:4010', 'http://[::1]:4010']) {
    await setPartnerCredentials(ops, 'peptidepartner', { peptide_api_url: url });
    t.is((await loadPartnerCredentials('peptidepartner')).peptide_api_url, url, `${url} is a loopback simulator`);
  }
});
