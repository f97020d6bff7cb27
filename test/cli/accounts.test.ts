/**
 * `svc customer list|show`, `svc user list|disable|enable|revoke-keys`, `svc vendor show`,
 * `svc vendor webhook rotate-secret`, `svc product review list` on real PostgreSQL: the services the
 * HTTP routes call, the policy applied to `--as`, the audit trail, tables and --json.
 */
import test from 'ava';
import { cliDatabase, svc } from '../helpers/cli.js';

const database = cliDatabase(test);
const env = () => ({ DATABASE_URL: database.url, USER: 'bob' });

test.serial('customer list: a table by default, JSON with --json, scoped by the policy under --as', async (t) => {
  const all = await svc(['customer', 'list'], env());
  t.is(all.code, 0, all.err.join('\n'));
  t.regex(all.out[0], /^CUSTOMER\s+NAME\s+TERRITORY\s+PRICE LIST\s+REP\s+DISABLED$/);
  t.true(all.out.some((l) => /^CUST-0001\s+Harbor Family Clinic\s+East/.test(l)));
  t.true(all.out.some((l) => l.startsWith('CUST-0002')));
  const rep = await svc(['customer', 'list', '--as', 'rep@demo.svc.local', '--json'], env());
  t.is(rep.code, 0, rep.err.join('\n'));
  const rows = JSON.parse(rep.out.join('\n')) as { name: string }[];
  t.deepEqual(
    rows.map((r) => r.name),
    ['CUST-0001'],
    'the East rep sees only the customers of its territory and team',
  );
  t.deepEqual(rep.err, []);
  const west = await svc(['customer', 'list', '--territory', 'West', '--json'], env());
  t.deepEqual(
    (JSON.parse(west.out.join('\n')) as { name: string }[]).map((r) => r.name),
    ['CUST-0002'],
  );
});

test.serial('customer show: fields and addresses; another territory’s customer is not found under --as', async (t) => {
  const res = await svc(['customer', 'show', 'CUST-0001'], env());
  t.is(res.code, 0, res.err.join('\n'));
  t.true(res.out.includes('customer:     CUST-0001'));
  t.true(res.out.some((l) => /^CUST-0001-Shipping\s/.test(l)));
  const json = await svc(['customer', 'show', 'CUST-0001', '--json'], env());
  t.like(JSON.parse(json.out.join('\n')), { name: 'CUST-0001', territory: 'East' });
  const hidden = await svc(['customer', 'show', 'CUST-0002', '--as', 'rep@demo.svc.local'], env());
  t.is(hidden.code, 1);
  t.deepEqual(hidden.err, ['error: Customer CUST-0002 not found']);
  t.is((await svc(['customer', 'list', '--as', 'vendor@demo.svc.local'], env())).code, 1, 'a vendor may not list customers');
  const missing = await svc(['customer', 'show'], env());
  t.is(missing.code, 2, 'without a terminal a left-out argument is a usage error naming it');
  t.deepEqual(missing.err, ["error: missing required argument 'customer'"]);
  t.deepEqual((await svc(['price-list', 'import'], env())).err, ["error: missing required argument 'file'"]);
});

test.serial('user list --role, disable (sessions end, audited), enable, revoke-keys', async (t) => {
  const list = await svc(['user', 'list', '--role', 'Sales Rep', '--json'], env());
  t.is(list.code, 0, list.err.join('\n'));
  const reps = (await database.pg.query<{ email: string }>(`SELECT email FROM users WHERE 'Sales Rep' = ANY(roles) ORDER BY email`)).rows.map((r) => r.email);
  t.true(reps.includes('west.rep@demo.svc.local'));
  t.deepEqual(
    (JSON.parse(list.out.join('\n')) as { email: string }[]).map((u) => u.email),
    reps,
  );
  t.is((await svc(['user', 'list', '--role', 'Pilot'], env())).code, 2);

  const id = ((await database.pg.query(`SELECT id FROM users WHERE email = 'west.rep@demo.svc.local'`)).rows[0] as { id: string }).id;
  // a session of the user: the CLI runs as a child, so no process database here to log in through
  await database.pg.query(`INSERT INTO sessions (id_hash, user_id, csrf_token, expires_at) VALUES ('s-test-west', $1, 'c', now() + interval '1 hour')`, [id]);
  const noYes = await svc(['user', 'disable', 'west.rep@demo.svc.local'], env());
  t.is(noYes.code, 2, 'a destructive step needs --yes without a terminal');
  const refused = await svc(['user', 'disable', 'west.rep@demo.svc.local', '--yes', '--as', 'ops@demo.svc.local'], env());
  t.is(refused.code, 1);
  t.regex(refused.err.join('\n'), /Not permitted to update User/);
  const off = await svc(['user', 'disable', 'west.rep@demo.svc.local', '--yes'], env());
  t.is(off.code, 0, off.err.join('\n'));
  t.regex(off.out[0], /^west\.rep@demo\.svc\.local: disabled/);
  t.is(((await database.pg.query(`SELECT enabled FROM users WHERE id = $1`, [id])).rows[0] as { enabled: boolean }).enabled, false);
  t.is(Number((await database.pg.query(`SELECT count(*) AS n FROM sessions WHERE user_id = $1`, [id])).rows[0].n), 0);
  const again = await svc(['user', 'disable', 'west.rep@demo.svc.local', '--yes'], env());
  t.regex(again.out[0], /already/);
  const on = await svc(['user', 'enable', 'west.rep@demo.svc.local', '--json', '--as', 'admin@demo.svc.local'], env());
  t.like(JSON.parse(on.out.join('\n')), { enabled: true, changed: true });
  const admin = ((await database.pg.query(`SELECT id FROM users WHERE email = 'admin@demo.svc.local'`)).rows[0] as { id: string }).id;
  const trail = (
    await database.pg.query(`SELECT actor_id, action FROM audit_events WHERE object_type = 'User' AND object_name = 'west.rep@demo.svc.local' ORDER BY id`)
  ).rows;
  t.deepEqual(trail, [
    { actor_id: 'cli:bob', action: 'disable' },
    { actor_id: admin, action: 'enable' },
  ]);

  const keys = await svc(['user', 'generate-keys', 'west.rep@demo.svc.local'], env());
  t.is(keys.code, 0);
  const revoke = await svc(['user', 'revoke-keys', 'west.rep@demo.svc.local', '--yes'], env());
  t.is(revoke.code, 0, revoke.err.join('\n'));
  t.deepEqual(revoke.out, ['west.rep@demo.svc.local: 1 API key(s) revoked']);
  t.is(Number((await database.pg.query(`SELECT count(*) AS n FROM api_keys WHERE user_id = $1`, [id])).rows[0].n), 0);
  t.is((await svc(['user', 'disable', 'nobody@demo.svc.local', '--yes'], env())).code, 1);
});

test.serial('vendor show: profile, API and webhook state, last calls, failed deliveries; rotate-secret', async (t) => {
  // a logged call: the CLI runs as a child, so no process database here to make one through
  await database.pg.query(
    `INSERT INTO vendor_api_logs (vendor, direction, function, status, http_status, duration_ms) VALUES ('VEN-DEMO-MEDI', 'inbound', 'svc.api.v1.sync.products', 'ok', 200, 12)`,
  );
  const res = await svc(['vendor', 'show', 'VEN-DEMO-MEDI'], env());
  t.is(res.code, 0, res.err.join('\n'));
  const text = res.out.join('\n');
  t.regex(text, /^status:\s+Approved$/m);
  t.regex(text, /^api:\s+enabled$/m);
  t.regex(text, /^webhook:\s+no webhook URL$/m);
  t.regex(text, /Last API calls \(1\):\nAT\s+FUNCTION\s+STATUS\s+HTTP\s+MS\n\S+\s+svc\.api\.v1\.sync\.products\s+ok\s+200\s+12/);
  t.regex(text, /Failed webhook deliveries \(0\):/);
  t.false(/secret_hash|whsec_/.test(text));

  const none = await svc(['vendor', 'webhook', 'rotate-secret', 'VEN-DEMO-MEDI', '--yes'], env());
  t.is(none.code, 1);
  t.regex(none.err.join('\n'), /has no Webhook URL/);
  t.is((await svc(['vendor', 'webhook', 'set', 'VEN-DEMO-MEDI', 'http://127.0.0.1:9/hooks'], env())).code, 0);
  const before = (
    (await database.pg.query(`SELECT webhook_secret_enc FROM vendor_profiles WHERE name = 'VEN-DEMO-MEDI'`)).rows[0] as { webhook_secret_enc: string }
  ).webhook_secret_enc;
  t.is((await svc(['vendor', 'webhook', 'rotate-secret', 'VEN-DEMO-MEDI'], env())).code, 2, 'needs --yes without a terminal');
  const rot = await svc(['vendor', 'webhook', 'rotate-secret', 'VEN-DEMO-MEDI', '--yes', '--json'], env());
  t.is(rot.code, 0, rot.err.join('\n'));
  const doc = JSON.parse(rot.out.join('\n')) as { webhook_secret: string; webhook_url: string };
  t.regex(doc.webhook_secret, /^whsec_/);
  t.is(doc.webhook_url, 'http://127.0.0.1:9/hooks');
  const after = (
    (await database.pg.query(`SELECT webhook_secret_enc FROM vendor_profiles WHERE name = 'VEN-DEMO-MEDI'`)).rows[0] as { webhook_secret_enc: string }
  ).webhook_secret_enc;
  t.not(after, before);
  const show = await svc(['vendor', 'show', 'VEN-DEMO-MEDI', '--json'], env());
  t.like(JSON.parse(show.out.join('\n')), { webhook_state: 'http://127.0.0.1:9/hooks (signed)', profile: { name: 'VEN-DEMO-MEDI' } });
  t.is((await svc(['vendor', 'show', 'VEN-NOPE'], env())).code, 1);
});

test.serial('product review list: pending products with vendor and age; the policy applies to --as', async (t) => {
  const res = await svc(['product', 'review', 'list'], env());
  t.is(res.code, 0, res.err.join('\n'));
  t.regex(res.out[0], /^ITEM CODE\s+NAME\s+VENDOR\s+SUBMITTED\s+AGE$/);
  t.true(res.out.some((l) => /^MEDI-GAUZE-4X4\s.*VEN-DEMO-MEDI\s.*\d+ [hd]$/.test(l)));
  const json = await svc(['product', 'review', 'list', '--json', '--vendor', 'VEN-DEMO-MEDI'], env());
  const rows = JSON.parse(json.out.join('\n')) as { item_code: string; vendor: string; age_hours: number }[];
  t.true(rows.length > 0 && rows.every((r) => r.vendor === 'VEN-DEMO-MEDI' && r.age_hours >= 0));
  t.is((await svc(['product', 'review', 'list', '--as', 'clinic@demo.svc.local'], env())).code, 1);
  // the review itself still works beside its new subcommand
  const approve = await svc(['product', 'review', 'MEDI-GAUZE-4X4', '--approve'], env());
  t.is(approve.code, 0, approve.err.join('\n'));
});

test.serial('the commands that existed before --as take it too, and record cli:<os-user> without it', async (t) => {
  const refused = await svc(['vendor', 'suspend', 'VEN-DEMO-SEP', '--as', 'rep@demo.svc.local'], env());
  t.is(refused.code, 1);
  t.deepEqual(refused.err, ['error: Not permitted to update Vendor Profile']);
  t.is((await svc(['vendor', 'suspend', 'VEN-DEMO-SEP'], env())).code, 0);
  const admin = await svc(['vendor', 'unsuspend', 'VEN-DEMO-SEP', '--as', 'marketplace.admin@demo.svc.local'], env());
  t.is(admin.code, 0, admin.err.join('\n'));
  const id = ((await database.pg.query(`SELECT id FROM users WHERE email = 'marketplace.admin@demo.svc.local'`)).rows[0] as { id: string }).id;
  const trail = (await database.pg.query(`SELECT actor_id, action FROM audit_events WHERE object_name = 'VEN-DEMO-SEP' ORDER BY id`)).rows;
  t.deepEqual(trail.slice(-2), [
    { actor_id: 'cli:bob', action: 'suspend' },
    { actor_id: id, action: 'unsuspend' },
  ]);
});
