import test from 'ava';
import { run } from '../../src/cli/main.js';
import type { Io } from '../../src/cli/io.js';
import { eventually } from '../helpers/eventually.js';
import { spawnSvc } from '../helpers/processes.js';
import { call, startReceiver } from './receiver.js';

function io(): Io & { outLines: string[]; errLines: string[] } {
  const outLines: string[] = [];
  const errLines: string[] = [];
  return { out: (l) => outLines.push(...l.split('\n')), err: (l) => errLines.push(...l.split('\n')), env: {}, interactive: false, outLines, errLines };
}

test('svc simulate refuses an unknown partner and a flag of another partner (exit 2)', async (t) => {
  const a = io();
  t.is(await run(['simulate', 'acme'], a), 2);
  t.regex(a.errLines.join('\n'), /Allowed choices are rxpartner, shipper, otcpartner, peptidepartner, storepartner/);
  const b = io();
  t.is(await run(['simulate', 'shipper', '--client-id', 'x'], b), 2);
  t.deepEqual(b.errLines, ['error: shipper takes no --client-id (its flags: --api-key, --api-secret)']);
  t.is(await run(['simulate', 'shipper', '--advance-every', '0'], io()), 2);
});

test('svc simulate shipper runs in the foreground, ships on its timer, posts SHIP_NOTIFY, and stops on SIGINT with 0', async (t) => {
  const hook = await startReceiver();
  t.teardown(() => hook.close());
  const child = await spawnSvc(
    ['simulate', 'shipper', '--port', '0', '--webhook-url', hook.url, '--advance-every', '0.05', '--api-key', 'k1', '--api-secret', 's1'],
    {},
    /Press Ctrl-C to stop/,
  );
  t.teardown(() => child.stop('SIGKILL'));
  const out = child.output();
  t.truthy(child.url, out);
  t.regex(out, /apiKey: k1/);
  t.regex(out, /Configure svc: svc partner-credentials set shipper --base-url http:\/\/127\.0\.0\.1:\d+ --api-key k1 --api-secret s1/);
  const auth = { authorization: `Basic ${Buffer.from('k1:s1').toString('base64')}` };
  const address = { name: 'A', street1: '1 Main St', city: 'Austin', state: 'TX', postalCode: '73301', country: 'US' };
  const created = await call(`${child.url}/orders/createorder`, {
    headers: auth,
    json: {
      orderNumber: 'SO-CLI',
      orderKey: 'SO-CLI',
      orderDate: '2026-04-02T10:00:00.0000000',
      orderStatus: 'awaiting_shipment',
      billTo: address,
      shipTo: address,
    },
  });
  t.is(created.status, 200);
  const note = await eventually(() => hook.received[0]);
  t.is(JSON.parse(note.raw).resource_type, 'SHIP_NOTIFY');
  t.is((await call(JSON.parse(note.raw).resource_url, { headers: auth })).body.shipments[0].orderKey, 'SO-CLI');
  t.is(await child.stop('SIGINT'), 0);
  t.regex(child.output(), /shipper simulator stopped/);
});
