/**
 * Lists show what documents show (issue 24, item 3): for every document type of the registry and an
 * actor of every role (and a vendor's bearer token), each row of a `fields=["*"]` list, of
 * frappe.client.get_list and of get_value equals the same document's GET on every field the type
 * declares (a field is in both or in neither, with the same value), get_count counts the same rows,
 * and a declared field the actor's document hides can be neither filtered nor sorted on. The roles
 * and types come from the registries, so a new one is covered without editing this file.
 */
import test from 'ava';
import { startTestApp, tokenClient, type TestApp } from '../helpers/app.js';
import type { Client, Json } from '../helpers/http.js';
import { MAIN, buildItem, buildOrder, buildUser, vendorActorOf } from '../helpers/factories.js';
import { createStockUpdateRequest } from '../../src/vendors/stock-request.service.js';
import { MEDI, vendorClient } from '../vendor-api/helpers.js';
import { ROLES } from '../../src/auth/actor.js';
import { docTypes } from '../../src/shared/doctype.js';

let app: TestApp;
const actors: [string, Client][] = [];
/** a submitted order holding a line of MEDI and a line of another vendor */
let mixed: string;

test.before(async () => {
  app = await startTestApp();
  for (const role of ROLES) {
    const user = await buildUser({ roles: [role], sales_person: role === 'Sales Rep' || role === 'Sales Manager' ? 'Rick Rep' : null });
    actors.push([role, await tokenClient(app, user.email)]);
  }
  actors.push(['vendor bearer token', await vendorClient(app, MEDI)]);
  const mine = await buildItem({ vendor: MEDI.name, price: 16.2 });
  const theirs = await buildItem({ vendor: 'VEN-DEMO-SEP', price: 89.5 });
  const order = await buildOrder({
    submitted: true,
    lines: [
      { item_code: mine, qty: 1, rate: 16.2 },
      { item_code: theirs, qty: 2, rate: 89.5 },
    ],
  });
  mixed = order.name;
  await buildOrder({ submitted: true }); // one more, of another vendor's item only
  await createStockUpdateRequest(await vendorActorOf(MEDI.name), { item: mine, action: 'add', warehouse: MAIN, quantity: 3, reason: 'restock' });
});
test.after.always(async () => {
  await app?.stop();
});

const path = (doctype: string) => `/api/resource/${encodeURIComponent(doctype)}`;

/** Declared fields of a row and of a document that differ (presence or value). */
function differences(declared: string[], row: Json, doc: Json): string[] {
  return declared.filter((f) => f in row !== f in doc || (f in row && JSON.stringify(row[f]) !== JSON.stringify(doc[f])));
}

for (const def of docTypes()) {
  test(`${def.name}: every actor's list, get_list, get_value and get_count show exactly what its GET shows`, async (t) => {
    const declared = Object.keys(def.fields);
    let compared = 0;
    for (const [who, client] of actors) {
      const list = await client.get(path(def.name), { fields: ['*'], limit_page_length: 5 });
      const count = await client.get('/api/method/frappe.client.get_count', { doctype: def.name });
      if (list.status === 403) {
        t.is(count.status, 403, `${who}: counts what it may not list`);
        continue;
      }
      t.is(list.status, 200, `${who}: ${list.text}`);
      const viaMethod = await client.get('/api/method/frappe.client.get_list', { doctype: def.name, fields: ['*'], limit_page_length: 5 });
      t.deepEqual(viaMethod.body.message, list.body.data, `${who}: get_list answers as the list`);
      const all = await client.get(path(def.name), { fields: ['name'], limit_page_length: 0 });
      t.is(count.body.message, all.body.data.length, `${who}: get_count counts the rows it lists`);
      for (const row of list.body.data as Json[]) {
        const doc = await client.get(`${path(def.name)}/${encodeURIComponent(String(row.name))}`);
        t.is(doc.status, 200, `${who} reads ${String(row.name)}: ${doc.text}`);
        t.deepEqual(differences(declared, row, doc.body.data), [], `${who}: ${def.name} ${String(row.name)} listed as read`);
        const value = await client.get('/api/method/frappe.client.get_value', { doctype: def.name, fieldname: ['*'], filters: { name: row.name } });
        t.deepEqual(value.body.message, row, `${who}: get_value of ${String(row.name)}`);
        compared++;
      }
      // what the document hides is neither a filter nor a sort key
      const shown = list.body.data.length ? Object.keys(list.body.data[0]) : declared;
      for (const hidden of declared.filter((f) => !shown.includes(f))) {
        const filtered = await client.get(path(def.name), { filters: [[hidden, 'is', 'set']] });
        t.is(filtered.status, 400, `${who}: filters on hidden ${hidden}`);
        const sorted = await client.get(path(def.name), { order_by: `${hidden} desc` });
        t.is(sorted.status, 400, `${who}: sorts on hidden ${hidden}`);
        const counted = await client.get('/api/method/frappe.client.get_count', { doctype: def.name, filters: [[hidden, 'is', 'set']] });
        t.is(counted.status, 400, `${who}: counts on hidden ${hidden}`);
      }
    }
    t.true(compared > 0, `some actor lists ${def.name}`);
  });
}

test("a vendor's list of an order carries its own lines' totals and none of the order's 503A flag, owner or partners' fields", async (t) => {
  const medi = actors.find(([who]) => who === 'vendor bearer token')![1];
  const list = await medi.get(path('Sales Order'), { fields: ['*'], filters: [['name', '=', mixed]] });
  t.is(list.status, 200, list.text);
  const [row] = list.body.data;
  t.like(row, { name: mixed, grand_total: 16.2, total_qty: 1 });
  for (const f of ['is_503a', 'owner', 'shipper_status', 'rxpartner_reference_id', 'store_order_id']) t.false(f in row, f);
  const doc = await medi.get(`${path('Sales Order')}/${mixed}`);
  t.like(doc.body.data, { grand_total: 16.2, total_qty: 1 });
  t.false('owner' in doc.body.data || 'is_503a' in doc.body.data);
  const named = await medi.get(path('Sales Order'), { fields: ['name', 'grand_total', 'total_qty', 'is_503a', 'owner'] });
  t.is(named.status, 400, 'naming a hidden field is refused');
  const sum = await medi.get('/api/method/frappe.client.get_count', { doctype: 'Sales Order', filters: [['grand_total', '>', 100]] });
  t.is(sum.body.message, 0, "filters run on the vendor's own totals, not the order's (195.20)");
});
