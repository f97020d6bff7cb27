/**
 * `svc customer create` (issue 14): the customer account service behind POST /api/resource/Customer,
 * from the CLI. In-process with flags (as the system, or --as a sales user whose territory and
 * rules apply), and once on a real terminal (script(1) gives it a pty) where the missing input is
 * prompted for. Serial: every run opens and closes the process-wide pool.
 */
import test from 'ava';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { eventually } from '../helpers/eventually.js';
import { cliDatabase, svc } from '../helpers/cli.js';
import { projectRoot } from '../../src/config/index.js';

const database = cliDatabase(test);

const customer = async (name: string) =>
  (await database.pg.query(`SELECT name, territory, price_list, assigned_rep FROM customers WHERE customer_name = $1`, [name])).rows[0] as
    { name: string; territory: string | null; price_list: string; assigned_rep: string | null } | undefined;

test.serial('flags: the system creates anywhere, with the list, rep and shipping address given', async (t) => {
  const res = await svc(
    [
      'customer',
      'create',
      '--customer-name',
      'Cli Clinic',
      '--territory',
      'West',
      '--price-list',
      'Wholesale',
      '--assigned-rep',
      'Wendy West',
      '--address-line1',
      '5 Cli Street',
      '--city',
      'Reno',
      '--state',
      'NV',
    ],
    { DATABASE_URL: database.url },
  );
  t.is(res.code, 0, res.err.join('\n'));
  const row = await customer('Cli Clinic');
  t.like(row, { territory: 'West', price_list: 'Wholesale', assigned_rep: 'Wendy West' });
  t.is(res.out[0], `Created ${row!.name} Cli Clinic (territory West, price list Wholesale, assigned rep Wendy West)`);
  t.is(res.out[1], `Shipping address ${row!.name}-Shipping`);
  const address = await database.pg.query(`SELECT city, is_primary_address FROM addresses WHERE name = $1`, [`${row!.name}-Shipping`]);
  t.deepEqual(address.rows, [{ city: 'Reno', is_primary_address: true }]);
});

test.serial('--as a rep: its territory and itself by default; outside it, or another rep, or a contract list not its own: refused', async (t) => {
  const ok = await svc(['customer', 'create', '--customer-name', 'Rick Cli', '--as', 'rep@demo.svc.local'], { DATABASE_URL: database.url });
  t.is(ok.code, 0, ok.err.join('\n'));
  t.like(await customer('Rick Cli'), { territory: 'East', price_list: 'Standard Selling', assigned_rep: 'Rick Rep' });
  const west = await svc(['customer', 'create', '--customer-name', 'West Try', '--territory', 'West', '--as', 'rep@demo.svc.local'], {
    DATABASE_URL: database.url,
  });
  t.is(west.code, 1);
  t.regex(west.err.join('\n'), /Not permitted to create a Customer in territory West/);
  const other = await svc(['customer', 'create', '--customer-name', 'Other', '--assigned-rep', 'Wendy West', '--as', 'rep@demo.svc.local'], {
    DATABASE_URL: database.url,
  });
  t.is(other.code, 1);
  const contract = await svc(['customer', 'create', '--customer-name', 'Contract', '--price-list', 'Contract Pricing', '--as', 'sales.rep@demo.svc.local'], {
    DATABASE_URL: database.url,
  });
  t.is(contract.code, 1);
  t.regex(contract.err.join('\n'), /contract Price List Contract Pricing/);
  t.is(await customer('West Try'), undefined);
  t.is((await svc(['customer', 'create', '--customer-name', 'Nobody', '--as', 'nobody@example.test'], { DATABASE_URL: database.url })).code, 1);
});

test.serial('off a terminal a missing name or half an address is a usage error (exit 2), nothing is written', async (t) => {
  const none = await svc(['customer', 'create'], { DATABASE_URL: database.url });
  t.is(none.code, 2);
  t.regex(none.err.join('\n'), /--customer-name/);
  const half = await svc(['customer', 'create', '--customer-name', 'Half', '--address-line1', '1 Road'], { DATABASE_URL: database.url });
  t.is(half.code, 2);
  t.is(await customer('Half'), undefined);
});

test.serial('on a terminal the missing input is prompted for', async (t) => {
  const bin = join(projectRoot, 'bin', 'svc');
  // script(1) runs the command on a pseudo-terminal, so svc sees a TTY and prompts
  const child = spawn('script', ['-qfec', `${process.execPath} ${bin} customer create --as sales.rep@demo.svc.local`, '/dev/null'], {
    env: { ...process.env, DATABASE_URL: database.url, SVC_ENV: 'test', SVC_LOG_LEVEL: 'silent' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const answer = async (prompt: RegExp, text: string) => {
    await eventually(() => prompt.test(out), { timeoutMs: 60_000, message: `prompt ${String(prompt)} in: ${out}` });
    out = '';
    child.stdin.write(`${text}\r`);
  };
  await answer(/Customer name/, 'Prompted Pharmacy');
  await answer(/address line 1/, '7 Prompt Avenue');
  await answer(/City/, 'Tulsa');
  await answer(/State/, 'OK');
  await answer(/ZIP/, '74103');
  t.is(await exited, 0, out);
  t.like(await customer('Prompted Pharmacy'), { territory: 'Central', assigned_rep: 'Riley Rivera' });
  const address = await database.pg.query(
    `SELECT a.city, a.pincode FROM addresses a JOIN customers c ON c.name = a.customer WHERE c.customer_name = 'Prompted Pharmacy'`,
  );
  t.deepEqual(address.rows, [{ city: 'Tulsa', pincode: '74103' }]);
});
