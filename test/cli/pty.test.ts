/**
 * The CLI on a real terminal: `svc` runs on a pseudo-terminal of its own (`script`, Debian Essential,
 * see test/helpers/terminal.ts), keys are typed into it and the screen is read as @xterm/headless
 * renders it. Prompts for missing input (a secret is not echoed), confirmations of destructive steps,
 * Ctrl-C → exit 130, and the import's progress bar (on a terminal only) and summary.
 */
import test from 'ava';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { projectRoot } from '../../src/config/index.js';
import { verifyPassword } from '../../src/shared/crypto.js';
import { createTestDatabase, pgClient } from '../helpers/db.js';
import { eventually } from '../helpers/eventually.js';
import { openTerminal, type TerminalSession } from '../helpers/terminal.js';
import { startTestApp } from '../helpers/app.js';
import { svc } from '../helpers/cli.js';
import { buildVendor } from '../helpers/factories.js';

let dbUrl: string;
let pgc: pg.Client;
const sessions: TerminalSession[] = [];

test.before(async () => {
  dbUrl = await createTestDatabase();
  pgc = await pgClient(dbUrl);
});
test.after.always(async () => {
  for (const session of sessions) session.kill();
  await pgc?.end();
});

interface Pane extends TerminalSession {
  /** Waits for svc to end; answers its exit code. */
  exit: () => Promise<number>;
  /** The screen once svc has ended. */
  final: () => string;
}

/** Starts `svc <args>` on a new 160×40 terminal. */
function start(args: string[]): Pane {
  const session = openTerminal([process.execPath, 'bin/svc', ...args], {
    cwd: projectRoot,
    env: { ...process.env, DATABASE_URL: dbUrl, SVC_ENV: 'test', SVC_LOG_LEVEL: 'silent', USER: 'carol' },
  });
  sessions.push(session);
  return {
    ...session,
    final: () => (session.exitCode() === undefined ? '' : session.screen()),
    exit: () => eventually(() => session.exitCode(), { timeoutMs: 60_000, message: `svc ${args.join(' ')} to end` }),
  };
}

const waitFor = (pane: { screen: () => string }, text: RegExp) =>
  eventually(() => text.test(pane.screen()) && pane.screen(), { timeoutMs: 60_000, message: String(text) });

test.serial('a missing password is asked on a terminal and not echoed', async (t) => {
  const pane = start(['user', 'set-password', 'west.rep@demo.svc.local']);
  await waitFor(pane, /New password for west\.rep@demo\.svc\.local/);
  pane.type('Typed-on-tty-42');
  pane.press('Enter');
  t.is(await pane.exit(), 0);
  const hash = ((await pgc.query(`SELECT password_hash FROM users WHERE email = 'west.rep@demo.svc.local'`)).rows[0] as { password_hash: string })
    .password_hash;
  t.true(await verifyPassword('Typed-on-tty-42', hash));
});

test.serial('the screen never shows the typed secret', async (t) => {
  const pane = start(['user', 'set-password', 'rep@demo.svc.local']);
  await waitFor(pane, /New password for rep@demo\.svc\.local/);
  pane.type('Never-shown-77');
  const typed = await waitFor(pane, /New password for rep@demo\.svc\.local.*\*{14}/);
  t.false(typed.includes('Never-shown-77'));
  pane.press('Enter');
  t.is(await pane.exit(), 0);
});

test.serial('a destructive step asks for confirmation: "n" aborts, "y" goes ahead', async (t) => {
  const no = start(['user', 'disable', 'west.rep@demo.svc.local']);
  await waitFor(no, /Disable west\.rep@demo\.svc\.local\? .*\(y\/N\)/);
  no.type('n');
  no.press('Enter');
  t.is(await no.exit(), 1);
  t.true(((await pgc.query(`SELECT enabled FROM users WHERE email = 'west.rep@demo.svc.local'`)).rows[0] as { enabled: boolean }).enabled);
  const yes = start(['user', 'disable', 'west.rep@demo.svc.local']);
  await waitFor(yes, /\(y\/N\)/);
  yes.type('y');
  yes.press('Enter');
  t.is(await yes.exit(), 0);
  t.false(((await pgc.query(`SELECT enabled FROM users WHERE email = 'west.rep@demo.svc.local'`)).rows[0] as { enabled: boolean }).enabled);
  const audit = (await pgc.query(`SELECT actor_id FROM audit_events WHERE object_name = 'west.rep@demo.svc.local' AND action = 'disable'`)).rows;
  t.deepEqual(audit, [{ actor_id: 'cli:carol' }]);
});

test.serial('Ctrl-C at a prompt exits 130 and changes nothing', async (t) => {
  // a vendor with a webhook URL (one without is told so before any confirmation)
  const set = await svc(['vendor', 'webhook', 'set', 'VEN-DEMO-MEDI', 'https://vendor.example/hooks'], { DATABASE_URL: dbUrl });
  if (set.code !== 0) throw new Error(set.stderr);
  const before = (await pgc.query(`SELECT webhook_secret_enc FROM vendor_profiles WHERE name = 'VEN-DEMO-MEDI'`)).rows;
  const pane = start(['vendor', 'webhook', 'rotate-secret', 'VEN-DEMO-MEDI']);
  await waitFor(pane, /Rotate the webhook secret of VEN-DEMO-MEDI\?/);
  pane.press('C-c');
  t.is(await pane.exit(), 130);
  t.deepEqual((await pgc.query(`SELECT webhook_secret_enc FROM vendor_profiles WHERE name = 'VEN-DEMO-MEDI'`)).rows, before);
});

test.serial('an import on a terminal: --replace asks first, then prints its summary', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pty-import-'));
  const file = join(dir, 'prices.csv');
  writeFileSync(file, ['price_list,item_code,rate', 'Sales Channel,DEMO-N95,1.5', 'Sales Channel,DEMO-BP-CUFF,20'].join('\n'));
  const pane = start(['price-list', 'import', file, '--replace']);
  // the question names how many prices it removes (the seeded Sales Channel prices the file leaves out)
  await waitFor(pane, /--replace removes \d+ price\(s\) of Sales Channel that .*prices\.csv does not name\. Continue\? \(y\/N\)/s);
  pane.type('y');
  pane.press('Enter');
  t.is(await pane.exit(), 0);
  t.regex(pane.final(), /^2 rows read in [\d.]+s: \d+ new, \d+ changed, \d+ unchanged, \d+ removed \[Sales Channel\]$/m);
  const rows = (await pgc.query(`SELECT item_code FROM item_prices WHERE price_list = 'Sales Channel' ORDER BY 1`)).rows;
  t.deepEqual(rows, [{ item_code: 'DEMO-BP-CUFF' }, { item_code: 'DEMO-N95' }]);
});

test.serial('a left-out argument is asked for on a terminal (then the confirmation)', async (t) => {
  const pane = start(['user', 'disable']);
  await waitFor(pane, /User e-mail/);
  pane.type('rep@demo.svc.local');
  pane.press('Enter');
  await waitFor(pane, /Disable rep@demo\.svc\.local\? .*\(y\/N\)/);
  pane.type('y');
  pane.press('Enter');
  t.is(await pane.exit(), 0);
  t.false(((await pgc.query(`SELECT enabled FROM users WHERE email = 'rep@demo.svc.local'`)).rows[0] as { enabled: boolean }).enabled);
});

test.serial('price-list import <file>: a left-out file is asked for on a terminal', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pty-ask-'));
  const file = join(dir, 'asked.csv');
  writeFileSync(file, ['price_list,item_code,rate', 'Wholesale,DEMO-N95,2.25'].join('\n'));
  const pane = start(['price-list', 'import']);
  await waitFor(pane, /Price list file/);
  pane.type(file);
  pane.press('Enter');
  t.is(await pane.exit(), 0);
  t.regex(pane.final(), /^1 rows read in [\d.]+s: \d+ new, \d+ changed, \d+ unchanged \[Wholesale\]$/m);
});

test.serial('an import on a terminal draws a progress bar (rows, rows/s, ETA) on stderr, erases it, then prints its summary', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pty-progress-'));
  const file = join(dir, 'prices.csv');
  writeFileSync(file, ['price_list,item_code,rate', 'Wholesale,DEMO-N95,2.5', 'Wholesale,DEMO-BP-CUFF,21'].join('\n'));
  const pane = start(['price-list', 'import', file]);
  t.is(await pane.exit(), 0);
  const written = pane.written();
  // the bar is redrawn in place (carriage return, then ESC [ K erasing to the end of the line) while the file is read
  const frames = written.replaceAll('\x1b[K', '<erase>');
  t.regex(frames, /\r\[[#-]{24}\] \d+% {2}\d+ rows {2}[\d,]+ rows\/s {2}ETA \d+s<erase>/);
  t.regex(frames, /\r\[#{24}\] 2 rows read in \d+s; checking them and writing the changes…<erase>/);
  // then erased: the screen keeps only the summary
  t.false(pane.final().includes('rows/s'), pane.final());
  t.regex(pane.final(), /^2 rows read in [\d.]+s: \d+ new, \d+ changed, \d+ unchanged \[Wholesale\]$/m);
});

test.serial('an import off a terminal draws no progress bar: the summary alone', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pipe-progress-'));
  const file = join(dir, 'prices.csv');
  writeFileSync(file, ['price_list,item_code,rate', 'Wholesale,DEMO-N95,3.5'].join('\n'));
  const { stdout, stderr } = await promisify(execFile)('node', ['bin/svc', 'price-list', 'import', file], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH, DATABASE_URL: dbUrl, SVC_ENV: 'test', SVC_LOG_LEVEL: 'silent', USER: 'carol' },
  });
  t.is(stderr, '');
  t.regex(stdout, /^1 rows read in [\d.]+s: 0 new, 1 changed, 0 unchanged \[Wholesale\]\n$/);
});

test.serial('vendor approve without its argument on a terminal: a list of the registrations waiting, then the next step', async (t) => {
  const app = await startTestApp({ dbUrl });
  const [first, second] = [
    await buildVendor({ status: 'Pending Approval', api_enabled: false }),
    await buildVendor({ status: 'Pending Approval', api_enabled: false }),
  ];
  await app.stop();
  const pane = start(['vendor', 'approve']);
  await waitFor(pane, new RegExp(`Vendor Profile to approve[\\s\\S]*${first.name} .*Pending Approval[\\s\\S]*${second.name}`));
  t.false(/VEN-DEMO-MEDI/.test(pane.screen()), 'approved vendors are not offered');
  pane.type('\x1b[B'); // arrow down: the second registration
  pane.press('Enter');
  t.is(await pane.exit(), 0);
  t.regex(
    pane.final(),
    new RegExp(`${second.name}: Approved, API disabled\\s+Next: svc vendor enable-api ${second.name}, then svc vendor credentials ${second.name}`),
  );
  const rows = (await pgc.query(`SELECT name, status FROM vendor_profiles WHERE name = ANY($1) ORDER BY name`, [[first.name, second.name]])).rows;
  t.deepEqual(rows, [
    { name: first.name, status: 'Pending Approval' },
    { name: second.name, status: 'Approved' },
  ]);
});

test.serial('user disable of an address no user has: said at once, no confirmation asked', async (t) => {
  const pane = start(['user', 'disable', 'nobody\there@demo.svc.local']);
  t.is(await pane.exit(), 1);
  t.regex(pane.final(), /error: User nobody\\there@demo\.svc\.local not found/);
  t.false(pane.final().includes('(y/N)'));
});
