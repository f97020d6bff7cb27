/**
 * Issue 24 §8: text from public forms never drives the operator's terminal. A vendor registers (the
 * public register_vendor form) with ANSI escapes, a carriage return, a newline that would start a
 * fake "Approved" row, a C1 CSI and a bidi override in its name; every text output of the CLI shows
 * them written out (`\u001b`, `\n`), one printed line stays one line, and --json stays the same value.
 */
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { svcBeside, type CliResult } from '../helpers/cli.js';
import { showControls } from '../../src/cli/io.js';
import { selectRows } from '../../src/db/sequelize.js';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.stop();
});

const FAKE_ROW = 'VEN-99999        Approved          api:on  scope:standard auto-approve:yes client_id:-  Trusted Supplies';
const EVIL = `Evil\u001b[2J\u001b[H Supply\r\n${FAKE_ROW}\u009b31m\u202egpj.exe\u0007`;
// every character a terminal acts on: C0 (newline, CR, ESC, BEL), DEL, C1 (CSI), bidi overrides
// eslint-disable-next-line no-control-regex -- the characters are what is checked
const RAW = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** Every line printed, as the terminal would receive it: none may hold a control character. */
function assertVisible(t: import('ava').ExecutionContext, r: CliResult, what: string) {
  for (const line of [...r.out, ...r.err]) t.false(RAW.test(line), `${what}: ${JSON.stringify(line)}`);
}

test.serial('a vendor named with escapes and a newline: list, show, user list, an error and --json show them visibly, one row each', async (t) => {
  const email = 'evil.vendor@example.com';
  const reg = await app.http.post('/api/method/svc.api.register_vendor', {
    sales_representative_name: EVIL,
    vendor_name: EVIL,
    email,
    password: 'a-long-enough-password',
    country: 'United States',
  });
  t.is(reg.status, 200, reg.text);
  // register_vendor's answer names no profile (it answers a known address alike): found by the address
  const [{ name }] = await selectRows<{ name: string }>(`SELECT name FROM vendor_profiles WHERE email = $1`, [email]);
  const shown = showControls(EVIL);
  t.is(shown, 'Evil\\u001b[2J\\u001b[H Supply\\r\\n' + FAKE_ROW + '\\u009b31m\\u202egpj.exe\\u0007');

  const list = await svcBeside(app, ['vendor', 'list']);
  t.is(list.code, 0, list.stderr);
  assertVisible(t, list, 'vendor list');
  const rows = list.out.filter((l) => l.includes(name));
  t.is(rows.length, 1);
  t.true(rows[0].endsWith(shown), rows[0]);
  t.false(
    list.out.some((l) => l.startsWith('VEN-99999')),
    'no fake row',
  );

  const show = await svcBeside(app, ['vendor', 'show', name]);
  t.is(show.code, 0, show.stderr);
  assertVisible(t, show, 'vendor show');
  t.true(
    show.out.some((l) => l.startsWith('name:') && l.endsWith(` ${shown}`)),
    show.stdout,
  );

  const users = await svcBeside(app, ['user', 'list']);
  t.is(users.code, 0, users.stderr);
  assertVisible(t, users, 'user list');
  t.is(users.out.filter((l) => l.includes(email)).length, 1);

  const missing = await svcBeside(app, ['vendor', 'show', `VEN-\u001b[2J\nX`]);
  t.is(missing.code, 1);
  assertVisible(t, missing, 'an error naming the argument');
  t.regex(missing.stderr, /VEN-\\u001b\[2J\\nX/);

  const asJson = await svcBeside(app, ['vendor', 'list', '--json']);
  t.is(asJson.code, 0, asJson.stderr);
  assertVisible(t, asJson, 'vendor list --json');
  const docs = JSON.parse(asJson.stdout) as { name: string; vendor_name: string }[];
  t.is(docs.find((v) => v.name === name)?.vendor_name, EVIL, 'JSON keeps the exact value');
});

test('showControls writes out every control character and leaves other text alone', (t) => {
  t.is(showControls('plain café 日本 ✓'), 'plain café 日本 ✓');
  t.is(showControls('a\tb\u007f\u0085\u2028\u2066'), 'a\\tb\\u007f\\u0085\\u2028\\u2066');
  t.is(showControls(showControls('\u001b[0m')), '\\u001b[0m', 'written out once');
});
