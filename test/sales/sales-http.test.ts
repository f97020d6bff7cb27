/**
 * Issue 14 over real HTTP, as the demo sales team (seeds/sales.seed.ts: Sofia Sterling manages Riley
 * Rivera and Casey Chen in Central; Sam Sub is Riley's sub-rep; a month of demo orders up to today):
 * every sales-team endpoint with its validation and statuses, the invitation through the outbox and
 * its acceptance, customer accounts through POST /api/resource/Customer and /Address (territory,
 * assigned rep, contract price lists), and the scoping of orders, product review and vendor payments.
 * Serial: the reads come first and count exactly, the writes after them add customers and a sub-rep.
 */
import test from 'ava';
import { loginAs, startTestApp, tokenClient, type TestApp } from '../helpers/app.js';
import { serverMessages, type Client } from '../helpers/http.js';
import { actorOf } from '../helpers/factories.js';
import { selectOne, selectRows } from '../../src/db/sequelize.js';
import { can } from '../../src/auth/policy/index.js';
import { OutboxWorker } from '../../src/jobs/outbox-worker.js';
import { eventually } from '../helpers/eventually.js';
import { startSmtpSink, type SmtpSink } from '../simulators/smtp.js';

let app: TestApp;
let riley: Client;
let casey: Client;
let sam: Client;
let sofia: Client;
let admin: Client;
let rick: Client;
let mary: Client;
let smtp: SmtpSink;

const M = '/api/method/';

test.before(async () => {
  smtp = await startSmtpSink();
  app = await startTestApp({ env: { SMTP_URL: smtp.url } });
  riley = await loginAs(app, 'sales.rep@demo.svc.local');
  casey = await tokenClient(app, 'sales.rep2@demo.svc.local');
  sam = await tokenClient(app, 'subrep@demo.svc.local');
  sofia = await tokenClient(app, 'sales.manager@demo.svc.local');
  admin = await tokenClient(app, 'admin@demo.svc.local');
  rick = await tokenClient(app, 'rep@demo.svc.local');
  mary = await tokenClient(app, 'manager@demo.svc.local');
});
test.after.always(async () => {
  await app?.stop();
  await smtp?.stop();
});

test.serial('get_rep_kpis: a demo rep who signs in sees month-to-date sales, commission, tier, level, a streak, customers and badges at once', async (t) => {
  const res = await riley.get(`${M}svc.rep_dashboard.get_rep_kpis`);
  t.is(res.status, 200);
  const k = res.body.message;
  t.like(k, { sales_person: 'Riley Rivera', role: 'rep', currency: 'USD', customer_count: 2, sub_reps: 1 });
  t.true(k.mtd_sales > 0, 'the demo orders reach today');
  t.true(k.commission_estimate > 0);
  t.true(['Bronze', 'Silver', 'Gold'].includes(k.tier));
  t.true(k.level >= 1 && typeof k.level_name === 'string');
  t.true(k.streak_days >= 5, `a streak of every business day of the month: ${k.streak_days}`);
  t.deepEqual(
    k.badges.map((b: { badge: string }) => b.badge).filter((b: string) => ['first_sale', 'hot_streak', 'team_builder'].includes(b)),
    ['first_sale', 'hot_streak', 'team_builder'],
  );
  // a manager names one of its team; a rep only itself; an admin anyone
  t.is((await sofia.get(`${M}svc.rep_dashboard.get_rep_kpis`, { sales_person: 'Sam Sub' })).body.message.role, 'sub-rep');
  const hidden = await casey.get(`${M}svc.rep_dashboard.get_rep_kpis`, { sales_person: 'Riley Rivera' });
  t.is(hidden.status, 404);
  t.deepEqual(serverMessages(hidden.body), ['Sales Person Riley Rivera not found']);
  t.is((await admin.get(`${M}svc.rep_dashboard.get_rep_kpis`, { sales_person: 'Casey Chen' })).status, 200);
  const none = await admin.get(`${M}svc.rep_dashboard.get_rep_kpis`);
  t.is(none.status, 417);
  t.is((await (await tokenClient(app, 'clinic@demo.svc.local')).get(`${M}svc.rep_dashboard.get_rep_kpis`)).status, 403);
});

test.serial('get_leaderboard: metric and limit, validated; the caller is marked', async (t) => {
  const res = await riley.get(`${M}svc.rep_dashboard.get_leaderboard`, { metric: 'streak_days', limit: '3' });
  t.is(res.status, 200);
  t.like(res.body.message, { metric: 'streak_days' });
  t.is(res.body.message.entries.length, 3);
  t.is(res.body.message.me.sales_person, 'Riley Rivera');
  t.is(res.body.message.entries[0].sales_person, 'Riley Rivera', 'Riley sold every business day');
  for (const metric of ['mtd_sales', 'commission_estimate']) t.is((await casey.get(`${M}svc.rep_dashboard.get_leaderboard`, { metric })).status, 200);
  const bad = await riley.get(`${M}svc.rep_dashboard.get_leaderboard`, { metric: 'revenue' });
  t.is(bad.status, 400);
  t.is(bad.body.exc_type, 'ValidationError');
  t.is((await riley.get(`${M}svc.rep_dashboard.get_leaderboard`, { limit: '0' })).status, 400);
  t.is((await riley.get(`${M}svc.rep_dashboard.get_leaderboard`, { limit: 'ten' })).status, 400);
  const clamped = await riley.get(`${M}svc.rep_dashboard.get_leaderboard`, { limit: '100000' });
  t.is(clamped.status, 200);
  t.true(clamped.body.message.entries.length <= 100);
});

test.serial('get_my_customers: the customers whose assigned_rep is the caller, limited', async (t) => {
  const res = await riley.get(`${M}svc.rep_dashboard.get_my_customers`, { limit: '10' });
  t.is(res.status, 200);
  t.deepEqual(res.body.message.map((c: { name: string }) => c.name).sort(), ['CUST-0101', 'CUST-0102']);
  t.true(res.body.message.every((c: { assigned_rep: string }) => c.assigned_rep === 'Riley Rivera'));
  t.is((await riley.get(`${M}svc.rep_dashboard.get_my_customers`, { limit: '1' })).body.message.length, 1);
  t.deepEqual(
    (await sam.get(`${M}svc.rep_dashboard.get_my_customers`)).body.message.map((c: { name: string }) => c.name),
    ['CUST-0105'],
  );
  t.is((await riley.get(`${M}svc.rep_dashboard.get_my_customers`, { limit: '-1' })).status, 400);
});

test.serial('team_commission_summary: managers only; per-team rep and manager totals', async (t) => {
  const res = await sofia.get(`${M}svc.team_commission.team_commission_summary`, { period_days: '30' });
  t.is(res.status, 200);
  const [team] = res.body.message.teams;
  t.is(res.body.message.teams.length, 1);
  t.is(team.manager, 'Sofia Sterling');
  t.deepEqual(
    team.reps.map((r: { sales_person: string }) => r.sales_person),
    ['Casey Chen', 'Riley Rivera', 'Sam Sub'],
  );
  t.true(team.team_sales > 0 && team.manager_override > 0);
  t.is(team.total_commission, Math.round((team.rep_commission + team.manager_total) * 100) / 100);
  const refused = await riley.get(`${M}svc.team_commission.team_commission_summary`, { period_days: '7' });
  t.is(refused.status, 403);
  t.is(refused.body.exc_type, 'PermissionError');
  t.is((await sofia.get(`${M}svc.team_commission.team_commission_summary`, { period_days: '0' })).status, 400);
  t.is((await sofia.get(`${M}svc.team_commission.team_commission_summary`, { period_days: 'week' })).status, 400);
  const all = await admin.get(`${M}svc.team_commission.team_commission_summary`);
  t.true(all.body.message.teams.some((x: { manager: string }) => x.manager === 'Mary Manager'));
  t.true(all.body.message.teams.some((x: { manager: string }) => x.manager === 'Sofia Sterling'));
});

test.serial('invite_subrep: creates the User and Sales Person below the rep, e-mails a one-time invitation; the pct is bounded by the plan', async (t) => {
  const url = `${M}svc.subrep_team.invite_subrep`;
  const tooMuch = await riley.post(url, { email: 'too.much@example.test', full_name: 'Too Much', subrep_pct: 45 });
  t.is(tooMuch.status, 417);
  t.deepEqual(serverMessages(tooMuch.body), ['subrep_pct must be at most 40 (the limit of your standard plan)']);
  t.is((await riley.post(url, { email: 'x@example.test', full_name: 'X', subrep_pct: 0 })).status, 400);
  t.is((await riley.post(url, { full_name: 'X', subrep_pct: 10 })).status, 400);
  t.is((await riley.post(url, { email: 'not-an-email', full_name: 'X', subrep_pct: 10 })).status, 400);
  t.is((await sam.post(url, { email: 'subsub@example.test', full_name: 'Sub Sub', subrep_pct: 10 })).status, 403, 'a sub-rep invites nobody');
  t.is((await sofia.post(url, { email: 'm@example.test', full_name: 'M', subrep_pct: 10 })).status, 403, 'a manager appoints, it does not invite');
  t.is((await riley.get(url, { email: 'g@example.test', full_name: 'G', subrep_pct: '10' })).status, 405);
  const ok = await riley.post(url, { email: 'nina.new@example.test', full_name: 'Nina New', subrep_pct: 25 });
  t.is(ok.status, 200);
  t.like(ok.body.message, {
    email: 'nina.new@example.test',
    sales_person: 'Nina New',
    parent_sales_person: 'Riley Rivera',
    subrep_pct: 25,
    territory: 'Central',
  });
  t.is((await riley.post(url, { email: 'nina.new@example.test', full_name: 'Nina Again', subrep_pct: 25 })).status, 409);
  // at rest, the outbox row holds no usable token: the text has a slot, the token is sealed with the service key
  const row = await selectOne<{ id: number; text: string; payload: string }>(
    `SELECT id, payload->>'text' AS text, payload::text AS payload FROM outbox WHERE kind = 'email' AND topic = 'subrep-invitation' AND target = 'nina.new@example.test'`,
  );
  t.truthy(row);
  t.regex(row!.text, /"token": "\{\{secret:token\}\}"/);
  t.regex(row!.text, /25% of the base commission/);
  const sealed = /"token": "(v1:[^"]+)"/.exec(row!.payload)![1];
  t.is((await app.http.post(`${M}svc.subrep_team.accept_invitation`, { token: sealed, password: 'NinaNew!2026z' })).status, 417, 'the sealed copy is no token');
  // the worker sends it by real SMTP, the token put in at send time
  const worker = new OutboxWorker({ databaseUrl: app.dbUrl, ...app.config.worker, kinds: ['email'] });
  await worker.start();
  try {
    await eventually(async () => (await selectOne<{ status: string }>(`SELECT status FROM outbox WHERE id = $1`, [row!.id]))?.status === 'done', {
      message: 'the invitation to be sent',
    });
  } finally {
    await worker.stop();
  }
  const delivered = smtp.received.find((m) => m.to.includes('nina.new@example.test'));
  t.truthy(delivered);
  const token = /"token": "([A-Za-z0-9_-]{43})"/.exec(delivered!.raw.replace(/=\r?\n/g, ''))![1];
  t.false(row!.payload.includes(token), 'the delivered token is nowhere in the outbox row');
  t.is((await selectRows(`SELECT 1 FROM outbox WHERE payload::text LIKE '%' || $1 || '%'`, [token])).length, 0);
  t.is((await selectRows(`SELECT 1 FROM sales_invitations WHERE token_hash = $1`, [token])).length, 0, 'only the hash is stored');
  const accept = `${M}svc.subrep_team.accept_invitation`;
  const anon = app.http;
  t.is((await anon.post(accept, { token, password: 'short' })).status, 400);
  t.is((await anon.post(accept, { token, password: 'NinaNew!2026x' })).status, 200);
  t.is((await anon.post(accept, { token, password: 'NinaNew!2026y' })).status, 417, 'used once');
  const nina = await loginAs(app, 'nina.new@example.test', 'NinaNew!2026x');
  t.like((await nina.get(`${M}svc.rep_dashboard.get_rep_kpis`)).body.message, { sales_person: 'Nina New', role: 'sub-rep', mtd_sales: 0, streak_days: 0 });
  const team = await sofia.get('/api/resource/Sales Person', { fields: ['name', 'parent_sales_person', 'subrep_pct'], filters: { name: 'Nina New' } });
  t.deepEqual(team.body.data, [{ name: 'Nina New', parent_sales_person: 'Riley Rivera', subrep_pct: 25 }]);
});

test.serial('POST /api/resource/Customer: a rep creates in its territory and becomes the assigned rep; validation and statuses', async (t) => {
  const res = await riley.post('/api/resource/Customer', {
    doctype: 'Customer',
    customer_name: 'Prairie Eye Center',
    customer_group: 'Clinics',
    email_id: 'eyes@prairie.example',
    shipping_address: { address_line1: '9 Prairie Road', city: 'Wichita', state: 'KS', pincode: '67202' },
  });
  t.is(res.status, 200);
  t.like(res.body.data, {
    customer_name: 'Prairie Eye Center',
    territory: 'Central',
    assigned_rep: 'Riley Rivera',
    price_list: 'Standard Selling',
    email: 'eyes@prairie.example',
  });
  t.regex(res.body.data.name, /^CUST-\d{4}$/);
  const address = await riley.get(`/api/resource/Address/${res.body.data.name}-Shipping`);
  t.like(address.body.data, { customer: res.body.data.name, city: 'Wichita', is_shipping_address: 1, is_primary_address: 1 });
  t.true((await riley.get(`${M}svc.rep_dashboard.get_my_customers`)).body.message.some((c: { name: string }) => c.name === res.body.data.name));

  const outside = await riley.post('/api/resource/Customer', { customer_name: 'East Side', territory: 'East' });
  t.is(outside.status, 403);
  t.regex(serverMessages(outside.body)[0], /Not permitted to create a Customer in territory East/);
  t.is((await riley.post('/api/resource/Customer', { customer_name: 'For Casey', assigned_rep: 'Casey Chen' })).status, 403);
  t.is((await riley.post('/api/resource/Customer', { customer_type: 'Company' })).status, 400);
  const unknownList = await riley.post('/api/resource/Customer', { customer_name: 'Nowhere', default_price_list: 'Gold List' });
  t.is(unknownList.status, 417);
  t.deepEqual(serverMessages(unknownList.body), ['Price List Gold List not found']);
  t.is((await riley.post('/api/resource/Customer', { customer_name: 'Nowhere', territory: 'Atlantis' })).status, 417);
  t.is((await riley.post('/api/resource/Customer', { customer_name: 'Wholesale one', default_price_list: 'Wholesale' })).status, 200);
  t.is((await (await tokenClient(app, 'clinic@demo.svc.local')).post('/api/resource/Customer', { customer_name: 'Self made' })).status, 403);
});

test.serial('a contract price list is given only by whoever may: managers and admins any, a rep one that already governs its customers', async (t) => {
  const contract = { customer_name: 'Contract Clinic', default_price_list: 'Contract Pricing' };
  const refused = await riley.post('/api/resource/Customer', contract);
  t.is(refused.status, 403);
  t.deepEqual(serverMessages(refused.body), ['Not permitted to assign the contract Price List Contract Pricing: it governs none of your customers']);
  // Rick holds CUST-0001 on Contract Pricing: another site of that account may have it
  const rickOk = await rick.post('/api/resource/Customer', { ...contract, customer_name: 'Harbor Clinic North' });
  t.is(rickOk.status, 200);
  t.like(rickOk.body.data, { territory: 'East', assigned_rep: 'Rick Rep', price_list: 'Contract Pricing' });
  const sofiaOk = await sofia.post('/api/resource/Customer', { ...contract, assigned_rep: 'Casey Chen' });
  t.is(sofiaOk.status, 200);
  t.like(sofiaOk.body.data, { territory: 'Central', assigned_rep: 'Casey Chen' });
  t.is((await sofia.post('/api/resource/Customer', { customer_name: 'Not mine', assigned_rep: 'Rick Rep' })).status, 403);
  t.is((await mary.post('/api/resource/Customer', { customer_name: 'Central try', territory: 'Central' })).status, 403);
  const anywhere = await admin.post('/api/resource/Customer', { ...contract, territory: 'West', assigned_rep: null });
  t.like(anywhere.body.data, { territory: 'West', assigned_rep: null, price_list: 'Contract Pricing' });
});

test.serial('POST /api/resource/Address: a Frappe client links it to a customer the caller may see', async (t) => {
  const body = {
    doctype: 'Address',
    address_title: 'Prairie annex',
    address_type: 'Shipping',
    address_line1: '2 Annex Way',
    city: 'Topeka',
    links: [{ link_doctype: 'Customer', link_name: 'CUST-0101' }],
  };
  const res = await riley.post('/api/resource/Address', body);
  t.is(res.status, 200);
  t.like(res.body.data, { name: 'CUST-0101-Shipping-2', customer: 'CUST-0101', address_title: 'Prairie annex', is_primary_address: 0 });
  t.is((await riley.post('/api/resource/Address', body)).body.data.name, 'CUST-0101-Shipping-3');
  const foreign = await riley.post('/api/resource/Address', { ...body, links: [{ link_doctype: 'Customer', link_name: 'CUST-0001' }] });
  t.is(foreign.status, 417);
  t.deepEqual(serverMessages(foreign.body), ['Could not find Customer: CUST-0001']);
  t.is((await riley.post('/api/resource/Address', { address_line1: 'x', city: 'y' })).status, 400);
  t.is((await riley.post('/api/resource/Address', { ...body, city: undefined })).status, 400);
});

test.serial(
  'scoping: an internal sales rep sees only orders of its territory or created by it, cannot review vendor products or read vendor payments',
  async (t) => {
    const orders = await casey.get('/api/resource/Sales Order', { fields: ['name', 'customer', 'territory'], limit_page_length: 0 });
    t.is(orders.status, 200);
    t.true(orders.body.data.length > 10);
    t.true(
      orders.body.data.every((o: { territory: string }) => o.territory === 'Central'),
      'Casey sees the Central orders, Riley’s included',
    );
    t.false(orders.body.data.some((o: { customer: string }) => o.customer === 'CUST-0001'));
    const demoOrder = orders.body.data[0].name;
    t.is((await rick.get(`/api/resource/Sales Order/${demoOrder}`)).status, 404, 'an East rep does not see a Central order');
    t.is((await admin.get(`/api/resource/Sales Order/${demoOrder}`)).status, 200);
    const review = await riley.post(`${M}svc.vendors.review_product`, { item_code: 'DEMO-N95', action: 'approve' });
    t.is(review.status, 403);
    const rep = await actorOf('sales.rep@demo.svc.local');
    t.false(can(rep, 'read', 'Vendor Payment'));
    t.false(can(await actorOf('sales.manager@demo.svc.local'), 'read', 'Vendor Payment'));
    t.true(can(await actorOf('admin@demo.svc.local'), 'read', 'Vendor Payment'));
    t.false(can(rep, 'review', 'Product Review'));
    // reps see their own customers' figures, managers their team's (the Sales Person tree)
    t.deepEqual(
      (await riley.get('/api/resource/Sales Person')).body.data.map((p: { name: string }) => p.name),
      ['Riley Rivera'],
    );
    t.deepEqual(
      (await sofia.get('/api/resource/Sales Person', { limit_page_length: 0 })).body.data
        .map((p: { name: string }) => p.name)
        .filter((n: string) => n !== 'Nina New'),
      ['Casey Chen', 'Riley Rivera', 'Sam Sub', 'Sofia Sterling'],
    );
  },
);
