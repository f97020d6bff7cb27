/**
 * Issue 30: a second, independent test of the rxpartner webhook signature check (T27; the first is
 * in rxpartner-webhooks.test.ts). The signature is computed here from partners.md §5 with node:crypto
 * (hex HMAC-SHA256 under client_secret of nonce + timestamp + sha256_hex(raw body)), not with the
 * service's own function, and each refused delivery is one that a plausible defect would let through:
 * the same JSON in other bytes, another key the service holds, the parts in another order, the raw
 * body in place of its hash, a stale timestamp signed correctly, a prefix of the signature, another
 * nonce. None is stored; the correctly signed control is.
 */
import test from 'ava';
import { createHash, createHmac, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { pgClient } from '../../helpers/db.js';
import { Client } from '../../helpers/http.js';
import { configureRx, RX } from './rx-helpers.js';

let app: TestApp;
let db: pg.Client;
let http: Client;

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  await configureRx('http://127.0.0.1:9'); // only the credentials matter: nothing is sent to rxpartner here
  http = new Client(app.url);
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const hmac = (key: string, s: string) => createHmac('sha256', key).update(s).digest('hex');

interface Delivery {
  raw: string;
  nonce: string;
  ts: string;
  signature: string;
}

/** A delivery of `event` for `reference`, signed as partners.md says; `change` makes one defect. */
function delivery(reference: string, change: (d: Delivery, body: Record<string, unknown>) => Partial<Delivery> = () => ({})): Delivery {
  const body = { event: 'ORDER_SHIPPED', orderId: reference, trackingNumber: '1Z999AA10123456784', carrier: 'UPS' };
  const raw = JSON.stringify(body);
  const nonce = randomUUID();
  const ts = String(Math.floor(Date.now() / 1000));
  const signed: Delivery = { raw, nonce, ts, signature: hmac(RX.clientSecret, `${nonce}${ts}${sha256(raw)}`) };
  return { ...signed, ...change(signed, body) };
}

const send = (d: Delivery) =>
  http.request('POST', '/api/method/svc.rxpartner.webhook', {
    raw: d.raw,
    headers: { 'content-type': 'application/json', 'X-Rxpartner-Signature': d.signature, 'X-Rxpartner-Nonce': d.nonce, 'X-Rxpartner-Timestamp': d.ts },
  });

const storedFor = async (reference: string) => Number((await db.query(`SELECT count(*) AS n FROM partner_events WHERE reference = $1`, [reference])).rows[0].n);

const DEFECTS: Record<string, (d: Delivery, body: Record<string, unknown>) => Partial<Delivery>> = {
  'the same JSON in other bytes (signed compact, sent indented)': (_d, body) => ({ raw: JSON.stringify(body, null, 2) }),
  'signed with the client_id, another value the service holds': (d) => ({ signature: hmac(RX.clientId, `${d.nonce}${d.ts}${sha256(d.raw)}`) }),
  'timestamp before nonce': (d) => ({ signature: hmac(RX.clientSecret, `${d.ts}${d.nonce}${sha256(d.raw)}`) }),
  'the raw body in place of its hash': (d) => ({ signature: hmac(RX.clientSecret, `${d.nonce}${d.ts}${d.raw}`) }),
  'a timestamp 301 s old, signed correctly': (d) => {
    const ts = String(Number(d.ts) - 301);
    return { ts, signature: hmac(RX.clientSecret, `${d.nonce}${ts}${sha256(d.raw)}`) };
  },
  'the first half of the right signature': (d) => ({ signature: d.signature.slice(0, 32) }),
  'the right signature under another nonce': () => ({ nonce: randomUUID() }),
};

test('every defective signature is 401 and stores nothing; the correct one is accepted (uppercase hex too)', async (t) => {
  let n = 0;
  for (const [defect, change] of Object.entries(DEFECTS)) {
    const reference = `SAL-ORD-T27-${++n}`;
    const res = await send(delivery(reference, change));
    t.is(res.status, 401, defect);
    t.is(res.body?.exc_type, 'AuthenticationError', defect);
    t.is(await storedFor(reference), 0, defect);
  }
  const control = await send(delivery('SAL-ORD-T27-OK'));
  t.is(control.status, 200, control.text);
  t.like(control.body.message, { accepted: 1 });
  t.is(await storedFor('SAL-ORD-T27-OK'), 1);
  const upper = await send(delivery('SAL-ORD-T27-UPPER', (d) => ({ signature: d.signature.toUpperCase() })));
  t.is(upper.status, 200, 'hex in either case');
  t.is(await storedFor('SAL-ORD-T27-UPPER'), 1);
});
