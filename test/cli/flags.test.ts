/**
 * Every flag whose value is a yes/no, one of a list, or a number refuses a bad value while the
 * command line is parsed: exit 2, one line naming the flag and what it allows, nothing changed. The
 * command tree is walked, so a new flag is covered: it either uses one of the conventions' parsers
 * (and is tried here) or is named below as free text.
 */
import test from 'ava';
import type { Command, Option } from 'commander';
import { createProgram } from '../../src/cli/program.js';
import { pathOf, runnableCommands } from '../../src/cli/examples.js';
import { flagKind, type FlagKind } from '../../src/cli/conventions.js';
import { cliDatabase, svc } from '../helpers/cli.js';
import { MEDI } from '../vendor-api/helpers.js';

const database = cliDatabase(test);

/** Flags whose value is free text (a name, an address, a secret, a URL, a date checked by the service). */
const FREE_TEXT = new Set([
  ...['--as', '--actor', '--vendor', '--customer', '--customer-name', '--name', '--sales-person', '--rep', '--assigned-rep', '--territory'],
  ...['--price-list', '--order', '--object', '--search', '--reason', '--comment', '--sku-prefix', '--to', '--host', '--since'],
  ...['--email', '--phone', '--address-line1', '--address-line2', '--city', '--state', '--pincode', '--country', '--password'],
  ...['--npi', '--dea', '--dea-license-file', '--output', '--report'],
  // the Customer's patient (a date checked by the service)
  ...['--first-name', '--last-name', '--date-of-birth'],
  // partner credentials and product mappings: identifiers, URLs and secrets of the partners' own
  ...['--access-token', '--api-key', '--api-secret', '--api-url', '--base-url', '--client-id', '--client-secret', '--redirect-uri', '--shop-url'],
  ...['--otc-api-key', '--otc-api-url', '--otc-webhook-key', '--otc-webhook-secret', '--peptide-api-key', '--peptide-api-url', '--webhook-key'],
  ...['--webhook-secret', '--webhook-token', '--webhook-url', '--default-practice-id', '--partner-account', '--warehouse-id'],
  // shipper labels: label_mode (api|elsewhere) is read by the connector, anything but api meaning elsewhere
  ...['--label-mode', '--label-carrier-code', '--label-service-code'],
  ...['--otc-sku', '--peptide-partner-product-id', '--rxpartner-drug-description', '--shipper-product-id', '--store-variant-id'],
  // recalls: an item, a vendor's sku, lots and serials (lists), expiry dates checked by the service, the customer's instructions
  ...['--item', '--sku', '--lot', '--serial', '--expiry-from', '--expiry-to', '--instructions'],
  // price-list import/export --format <csv|xlsx>: checked by formatOf when the command runs (exit 1), price-list's own code
  '--format',
]);

const BAD: Record<FlagKind, string> = { 'yes-no': 'maybe', enum: 'nonesuch', number: 'x12' };

const valued = (cmd: Command): Option[] => cmd.options.filter((o) => o.required || o.optional);
const program = () => createProgram({ out: () => undefined, err: () => undefined, env: {}, interactive: false });

test('every flag taking a value is either free text or parsed by a parser of the conventions', (t) => {
  for (const cmd of runnableCommands(program()))
    for (const o of valued(cmd)) {
      const kind = flagKind(o.parseArg);
      t.true(
        kind !== undefined || FREE_TEXT.has(o.long ?? ''),
        `${pathOf(cmd)} ${o.long}: a yes/no, enum or number flag needs a parser from src/cli/conventions.ts`,
      );
      t.false(kind !== undefined && FREE_TEXT.has(o.long ?? ''), `${pathOf(cmd)} ${o.long} is parsed: not free text`);
    }
});

test.serial('every yes/no, enum and number flag refuses a bad value: exit 2 naming the flag and what it allows', async (t) => {
  let tried = 0;
  for (const cmd of runnableCommands(program()))
    for (const o of valued(cmd)) {
      const kind = flagKind(o.parseArg);
      if (!kind) continue;
      const path = pathOf(cmd);
      const res = await svc([...path.split(' '), o.long ?? '', BAD[kind]], { DATABASE_URL: database.url });
      t.is(res.code, 2, `${path} ${o.long} ${BAD[kind]}: ${res.stderr}`);
      t.is(res.err.length, 1, `${path} ${o.long}: ${res.stderr}`);
      t.regex(res.err[0], new RegExp(`^error: option '[^']*${o.long}[^']*' argument '${BAD[kind]}' is invalid\\. must be `), `${path} ${o.long}`);
      if (kind === 'yes-no') t.true(res.err[0].endsWith('must be one of: yes, no'), res.err[0]);
      if (kind === 'enum') t.regex(res.err[0], /must be one (or more )?of: \w/, res.err[0]);
      t.deepEqual(res.out, [], `${path} ${o.long}`);
      tried++;
    }
  t.true(tried >= 25, String(tried));
});

test.serial('svc vendor settings V --auto-approve maybe: exit 2, the setting unchanged; yes and no still set it', async (t) => {
  const autoApprove = async () =>
    (await database.pg.query<{ auto_approve: boolean }>('SELECT auto_approve FROM vendor_profiles WHERE name = $1', [MEDI.name])).rows[0].auto_approve;
  const env = { DATABASE_URL: database.url, USER: 'carol' };
  t.is((await svc(['vendor', 'settings', MEDI.name, '--auto-approve', 'yes'], env)).code, 0);
  t.true(await autoApprove());
  const bad = await svc(['vendor', 'settings', MEDI.name, '--auto-approve', 'maybe'], env);
  t.is(bad.code, 2);
  t.is(bad.stderr, "error: option '--auto-approve <yes|no>' argument 'maybe' is invalid. must be one of: yes, no");
  t.true(await autoApprove());
  for (const bad of ['true', 'on', '1', 'off']) t.is((await svc(['vendor', 'settings', MEDI.name, '--auto-approve', bad], env)).code, 2, bad);
  t.true(await autoApprove());
  t.is((await svc(['vendor', 'settings', MEDI.name, '--auto-approve', 'No', '--scope', 'STANDARD'], env)).code, 0);
  t.false(await autoApprove());
  const scope = await database.pg.query<{ scope: string }>('SELECT scope FROM vendor_profiles WHERE name = $1', [MEDI.name]);
  t.is(scope.rows[0].scope, 'standard');
});
