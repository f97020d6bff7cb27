import test from 'ava';
import { cliDatabase, svc } from '../helpers/cli.js';
import { MEDI, one } from './helpers.js';

const database = cliDatabase(test);

test.serial('svc vendor list | suspend | unsuspend | credentials | webhook set | settings', async (t) => {
  const env = { DATABASE_URL: database.url };
  const list = await svc(['vendor', 'list'], env);
  t.is(list.code, 0, list.err.join('\n'));
  t.regex(list.out[0], /^VENDOR\s+STATUS\s+SUSPENDED\s+API\s+SCOPE\s+AUTO-APPROVE\s+CLIENT_ID\s+NAME$/);
  t.true(list.out.some((l) => /^VEN-DEMO-SUSP\s+Approved\s+yes\s/.test(l)));
  t.is((await svc(['vendor', 'suspend', MEDI.name], env)).code, 0);
  t.true((await one<{ suspended: boolean }>(database.pg, `SELECT suspended FROM vendor_profiles WHERE name = $1`, [MEDI.name])).suspended);
  t.is((await svc(['vendor', 'unsuspend', MEDI.name], env)).code, 0);
  const creds = await svc(['vendor', 'credentials', MEDI.name], env);
  t.is(creds.code, 0);
  t.true(creds.out.some((l) => l.startsWith('client_secret: svcs_')));
  const hook = await svc(['vendor', 'webhook', 'set', MEDI.name, 'http://127.0.0.1:9/hook'], env);
  t.is(hook.code, 0, hook.err.join('\n'));
  t.true(hook.out.some((l) => l.startsWith('webhook secret: whsec_')));
  const badHook = await svc(['vendor', 'webhook', 'set', MEDI.name, 'ftp://x'], env);
  t.is(badHook.code, 1);
  t.is((await svc(['vendor', 'settings', 'VEN-DEMO-SEP', '--auto-approve', 'no'], env)).code, 0);
  t.false((await one<{ auto_approve: boolean }>(database.pg, `SELECT auto_approve FROM vendor_profiles WHERE name = 'VEN-DEMO-SEP'`)).auto_approve);
  t.is((await svc(['vendor', 'approve', 'NOPE'], env)).code, 1);
});

test.serial('svc product review --approve / --reject --reason', async (t) => {
  const env = { DATABASE_URL: database.url };
  t.is((await svc(['product', 'review', 'MEDI-GAUZE-4X4'], env)).code, 2);
  t.is((await svc(['product', 'review', 'MEDI-GAUZE-4X4', '--reject'], env)).code, 2);
  const ok = await svc(['product', 'review', 'MEDI-GAUZE-4X4', '--reject', '--reason', 'Needs photos'], env);
  t.is(ok.code, 0, ok.err.join('\n'));
  t.like(await one(database.pg, `SELECT workflow_state, rejection_reason FROM items WHERE item_code = 'MEDI-GAUZE-4X4'`), {
    workflow_state: 'Rejected',
    rejection_reason: 'Needs photos',
  });
  t.is((await one<{ n: number }>(database.pg, `SELECT count(*)::int AS n FROM outbox WHERE topic = 'product.rejected' AND target = $1`, [MEDI.name])).n, 1);
});
