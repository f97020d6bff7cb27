import type { Command } from 'commander';
import type { PartnerKey } from '../../fulfilment/partners.js';
import { PARTNER_KEYS, PARTNER_SPECS as PARTNERS } from '../../partners/index.js';
import { openDatabase } from '../context.js';
import { cliActor, common, json, say, type CommonOptions } from '../conventions.js';
import { CliError, type Io } from '../io.js';
import { askValue } from '../prompts.js';

// the services load when a command runs (svc --help never loads them)
const stored = () => import('../../fulfilment/credentials/credentials.service.js');

/** Every partner's flags, once each (base-url, api-key … are shared names): flag → description. */
function allFlags(): Map<string, string> {
  const flags = new Map<string, string>();
  for (const p of PARTNER_KEYS) {
    for (const f of PARTNERS[p].credentials) flags.set(f.flag, flags.has(f.flag) ? `${flags.get(f.flag)}; ${p}: ${f.description}` : `${p}: ${f.description}`);
  }
  return flags;
}

const optionKey = (flag: string) => flag.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

/** The values given as flags, checked against the partner's own fields (a flag of another partner is a usage error). */
function givenValues(partner: PartnerKey, opts: Record<string, string | undefined>): Record<string, string> {
  const fields = PARTNERS[partner].credentials;
  const values: Record<string, string> = {};
  for (const flag of allFlags().keys()) {
    const value = opts[optionKey(flag)];
    if (value === undefined) continue;
    const field = fields.find((f) => f.flag === flag);
    if (!field) throw new CliError(`${partner} has no --${flag}; its flags: ${fields.map((f) => `--${f.flag}`).join(' ')}`, 2);
    values[field.name] = value;
  }
  return values;
}

/** Prompts (on a terminal) for the fields neither given nor stored; off a terminal, a missing required one is a usage error. */
async function promptMissing(io: Io, partner: PartnerKey, values: Record<string, string>, stored: Set<string>): Promise<void> {
  const missing = PARTNERS[partner].credentials.filter((f) => !(f.name in values) && !stored.has(f.name));
  if (!io.interactive) {
    const required = missing.filter((f) => f.required);
    if (required.length && Object.keys(values).length === 0)
      throw new CliError(`No credential given for ${partner}: pass ${required.map((f) => `--${f.flag}`).join(' ')}`, 2);
    return;
  }
  for (const f of missing) {
    const value = await askValue(io, `${partner} ${f.name} (${f.description})${f.required ? '' : ', optional'}:`, {
      secret: f.secret,
      optional: !f.required,
      flag: f.flag,
    });
    if (value !== undefined) values[f.name] = value;
  }
}

function fieldLine(f: { name: string; flag: string; required: boolean; set: boolean; value: string | null }): string {
  return `  ${f.name.padEnd(22)} ${f.set ? f.value : f.required ? '(missing)' : '(not set, optional)'}`;
}

export function registerPartnerCredentials(program: Command, io: Io): void {
  const cmd = program.command('partner-credentials').description('Partner credentials (managed integration): stored encrypted, shown masked, tested');
  const set = common(
    cmd
      .command('set')
      .description('Store credentials of a partner (flags named after the spec fields); missing ones are prompted for on a terminal, secrets without echo')
      .argument('<partner>', PARTNER_KEYS.join(' | ')),
    { json: true },
  );
  for (const [flag, description] of allFlags()) set.option(`--${flag} <value>`, description);
  set.action(async (name: string, opts: Record<string, string | undefined> & CommonOptions) => {
    const { partnerOf, setPartnerCredentials, showPartnerCredentials } = await stored();
    let partner: PartnerKey;
    try {
      partner = partnerOf(name);
    } catch (err) {
      throw new CliError((err as Error).message, 2);
    }
    const values = givenValues(partner, opts);
    await openDatabase(io);
    const actor = await cliActor(io);
    const [shown] = await showPartnerCredentials(actor, partner);
    await promptMissing(io, partner, values, new Set(shown.fields.filter((f) => f.set).map((f) => f.name)));
    if (Object.keys(values).length === 0) throw new CliError('Nothing to store', 2);
    const r = await setPartnerCredentials(actor, partner, values);
    if (opts.json) return json(io, r); // the names of the fields stored, never their values
    io.out(`${partner}: stored ${r.set.join(', ')} (encrypted)`);
    io.out(r.missing.length ? `still missing: ${r.missing.join(', ')}` : 'complete');
    if (r.redriven) io.out(`${r.redriven} partner order(s) waiting for this configuration queued again`);
  });
  common(cmd.command('show').description('Each partner’s credential fields; secrets masked (never shown)').argument('[partner]', PARTNER_KEYS.join(' | ')), {
    json: true,
  }).action(async (partner: string | undefined, opts: CommonOptions) => {
    await openDatabase(io);
    const rows = await (await stored()).showPartnerCredentials(await cliActor(io), partner);
    if (opts.json) return json(io, rows);
    for (const r of rows) {
      io.out(`${r.partner} (${r.label}): ${r.complete ? 'complete' : 'incomplete'}`);
      for (const f of r.fields) io.out(fieldLine(f));
    }
  });
  common(
    cmd.command('test').description('One harmless authenticated call to the partner; says what it answered').argument('<partner>', PARTNER_KEYS.join(' | ')),
    {
      json: true,
    },
  ).action(async (partner: string, opts: CommonOptions) => {
    await openDatabase(io);
    const { testPartnerCredentials } = await import('../../fulfilment/credentials/credentials-test.service.js');
    const r = await testPartnerCredentials(await cliActor(io), partner);
    if (opts.json) json(io, r); // the document either way; a refusal is still exit 1
    const line = `${r.partner}: ${r.detail}${r.http_status ? ` (HTTP ${r.http_status})` : ''}`;
    if (!r.ok) throw new CliError(line, 1);
    say(io, opts, `ok: ${line}`);
  });
}
