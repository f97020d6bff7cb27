import test from 'ava';
import { createTestDatabase } from '../helpers/db.js';
import { spawnServe, type Child } from '../helpers/processes.js';
import { Client } from '../helpers/http.js';
import { RX, tokenFor } from './helpers.js';

let children: Child[] = [];
test.before(async () => {
  const url = await createTestDatabase();
  children = await Promise.all([spawnServe(url), spawnServe(url)]);
});
test.after.always(async () => {
  await Promise.all(children.map((c) => c.stop()));
});

test('T39: 200 calls of one vendor over two processes: exactly 120 accepted, the rest 429 with Retry-After', async (t) => {
  const token = await tokenFor({ url: children[0].url! }, RX);
  const clients = children.map((c) => new Client(c.url!, { bearer: token }));
  const statuses: number[] = [];
  const retryAfter: (string | null)[] = [];
  for (let wave = 0; wave < 10; wave++) {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => clients[i % 2].post('/api/method/svc.api.v1.sync.product_status', { items: [{ sku: 'RX-B12-30ML' }] })),
    );
    for (const a of answers) {
      statuses.push(a.status);
      if (a.status === 429) retryAfter.push(a.headers.get('retry-after'));
    }
  }
  t.is(statuses.filter((s) => s === 200).length, 120);
  t.is(statuses.filter((s) => s === 429).length, 80);
  t.true(retryAfter.every((r) => r !== null && Number(r) >= 1 && Number(r) <= 60));
});
