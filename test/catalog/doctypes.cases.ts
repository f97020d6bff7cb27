import test from 'ava';
import type pg from 'pg';
import { loginAs, sharedTestApp, tokenClient, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { MEDI, vendorClient } from '../vendor-api/helpers.js';

let app: TestApp;
let db: pg.Client;
test.before(async () => {
  app = await sharedTestApp();
  db = await pgClient(app.dbUrl);
  // one demo item back in the review queue, as it was: a re-sync would also rename it, and the names are asserted
  await db.query(
    `UPDATE items SET workflow_state = 'Pending', published = false WHERE item_code = (SELECT item_code FROM items WHERE vendor = $1 ORDER BY item_code LIMIT 1)`,
    [MEDI.name],
  );
});
test.after.always(async () => {
  await db?.end();
});

test('Item: a customer lists only reviewed, published, enabled items; staff see all; a vendor sees its own pending ones', async (t) => {
  const pending = (await db.query(`SELECT item_code FROM items WHERE workflow_state <> 'Approved' OR NOT published OR disabled`)).rows.map(
    (r) => r.item_code as string,
  );
  t.true(pending.length > 0);
  const customer = await loginAs(app, 'clinic@demo.svc.local');
  const seen = (await customer.get('/api/resource/Item', { limit: 0 })).body.data.map((r: { name: string }) => r.name);
  t.true(seen.length > 0);
  for (const code of pending) t.false(seen.includes(code), code);
  t.is((await customer.get(`/api/resource/Item/${pending[0]}`)).status, 404);

  const catalog = await tokenClient(app, 'catalog@demo.svc.local');
  const all = (await catalog.get('/api/method/frappe.client.get_count', { doctype: 'Item' })).body.message;
  t.is(all, Number((await db.query('SELECT count(*) FROM items')).rows[0].count));

  const vendor = await vendorClient(app, MEDI);
  const own = await vendor.get('/api/resource/Item', { filters: [['vendor', '=', MEDI.name]], fields: ['name', 'workflow_state'], limit: 0 });
  t.is(own.status, 200);
  t.true(own.body.data.some((r: { workflow_state: string }) => r.workflow_state === 'Pending'));
});

test('Vendor Profile: a vendor sees only itself and never a secret; Item Price: vendors only their items, customers refused', async (t) => {
  const vendor = await vendorClient(app, MEDI);
  const profiles = await vendor.get('/api/resource/Vendor Profile', { fields: ['*'] });
  t.is(profiles.status, 200);
  t.deepEqual(
    profiles.body.data.map((r: { name: string }) => r.name),
    [MEDI.name],
  );
  t.false(JSON.stringify(profiles.body).includes('secret'));
  t.is((await vendor.get('/api/resource/Vendor Profile', { fields: ['client_secret_hash'] })).status, 400);

  const prices = await vendor.get('/api/resource/Item Price', { fields: ['item_code'], limit: 0 });
  t.is(prices.status, 200);
  const foreign = (
    await db.query(
      `SELECT count(*) FROM item_prices p JOIN items i ON i.item_code = p.item_code WHERE i.vendor IS DISTINCT FROM $1 AND p.item_code = ANY($2)`,
      [MEDI.name, prices.body.data.map((r: { item_code: string }) => r.item_code)],
    )
  ).rows[0].count;
  t.is(Number(foreign), 0);
  const customer = await loginAs(app, 'clinic@demo.svc.local');
  t.is((await customer.get('/api/resource/Item Price')).status, 403);
});
