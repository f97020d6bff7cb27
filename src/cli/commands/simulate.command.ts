import { Option, type Command } from 'commander';
import { port, seconds } from '../conventions.js';
import type { CredentialsByPartner, PartnerKey } from '../../simulators/index.js';
import { PARTNER_KEYS } from '../../partners/index.js';
import { CliError, type Io } from '../io.js';

interface SimulateOpts {
  port?: number;
  host?: string;
  webhookUrl?: string;
  advanceEvery?: number;
  apiKey?: string;
  apiSecret?: string;
  webhookKey?: string;
  webhookSecret?: string;
  clientId?: string;
  clientSecret?: string;
  accessToken?: string;
}

/** Which flags each partner takes, mapped to its credential fields. */
const FLAGS: Record<PartnerKey, Partial<Record<keyof SimulateOpts, string>>> = {
  rxpartner: { clientId: 'clientId', clientSecret: 'clientSecret' },
  shipper: { apiKey: 'apiKey', apiSecret: 'apiSecret' },
  otcpartner: { apiKey: 'apiKey', webhookKey: 'webhookKey', webhookSecret: 'webhookSecret' },
  peptidepartner: { apiKey: 'apiKey' },
  storepartner: { clientId: 'clientId', clientSecret: 'clientSecret', accessToken: 'accessToken', webhookSecret: 'webhookSecret' },
};

const flagName = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

function credentialsFor(partner: PartnerKey, opts: SimulateOpts, DEMO_CREDENTIALS: CredentialsByPartner): CredentialsByPartner[PartnerKey] {
  const allowed = FLAGS[partner];
  const stray = (['apiKey', 'apiSecret', 'webhookKey', 'webhookSecret', 'clientId', 'clientSecret', 'accessToken'] as const).filter(
    (k) => opts[k] !== undefined && !allowed[k],
  );
  if (stray.length)
    throw new CliError(`${partner} takes no ${stray.map(flagName).join(', ')} (its flags: ${Object.keys(allowed).map(flagName).join(', ')})`, 2);
  const creds: Record<string, string | undefined> = { ...(DEMO_CREDENTIALS[partner] as unknown as Record<string, string>) };
  for (const [flag, field] of Object.entries(allowed))
    if (opts[flag as keyof SimulateOpts] !== undefined) creds[field] = String(opts[flag as keyof SimulateOpts]);
  return creds as unknown as CredentialsByPartner[PartnerKey];
}

export function registerSimulate(program: Command, io: Io): void {
  program
    .command('simulate')
    .description('Run one partner simulator in the foreground (loopback HTTP; Ctrl-C stops it)')
    .addArgument(
      program
        .createArgument('<partner>', 'rxpartner, shipper, otcpartner, peptidepartner, storepartner, or nppes (the NPI registry)')
        .choices([...PARTNER_KEYS, 'nppes']),
    )
    .option('-p, --port <port>', 'port (default 0: a free one)', port)
    .option('-H, --host <host>', 'bind address (default 127.0.0.1)')
    .option('--webhook-url <url>', "where partner events are POSTed, signed the partner's way")
    .option('--advance-every <seconds>', 'move every order one status forward this often (default: only on command)', seconds)
    .addOption(new Option('--api-key <key>', 'shipper, otcpartner, peptidepartner: the API key'))
    .addOption(new Option('--api-secret <secret>', 'shipper: the API secret'))
    .addOption(new Option('--webhook-key <key>', 'otcpartner: the `key` header of its webhooks'))
    .addOption(new Option('--webhook-secret <secret>', 'otcpartner, storepartner: the webhook signing secret'))
    .addOption(new Option('--client-id <id>', 'rxpartner, storepartner: the client id'))
    .addOption(new Option('--client-secret <secret>', 'rxpartner, storepartner: the client secret'))
    .addOption(new Option('--access-token <token>', 'storepartner: an admin access token accepted from the start'))
    .action(async (partner: PartnerKey | 'nppes', opts: SimulateOpts) => {
      if (partner === 'nppes') return simulateNppes(io, opts);
      if (opts.webhookUrl && !/^https?:\/\//.test(opts.webhookUrl)) throw new CliError('--webhook-url must be an http(s) URL', 2);
      // loaded when it runs (svc --help never loads the simulators)
      const [{ trapStopSignals }, { configureCommand, DEMO_CREDENTIALS, startSimulator }] = await Promise.all([
        import('../../app/lifecycle.js'),
        import('../../simulators/index.js'),
      ]);
      const credentials = credentialsFor(partner, opts, DEMO_CREDENTIALS);
      const trap = trapStopSignals();
      const sim = await startSimulator(partner, {
        host: opts.host,
        port: opts.port,
        credentials,
        webhookUrl: opts.webhookUrl,
        advanceEveryMs: opts.advanceEvery === undefined ? undefined : Math.round(opts.advanceEvery * 1000),
      } as never);
      io.out(`${partner} simulator listening on ${sim.url}`);
      for (const [k, v] of Object.entries(credentials)) if (v !== undefined) io.out(`  ${k}: ${v}`);
      io.out(`Configure svc: ${configureCommand(partner, sim.url, credentials)}`);
      if (partner === 'peptidepartner') io.out('Webhooks: none (the partner has none; svc polls the order status)');
      else io.out(opts.webhookUrl ? `Webhooks: POST ${opts.webhookUrl}` : 'Webhooks: off (no --webhook-url)');
      io.out(
        `Orders move ${opts.advanceEvery ? `every ${opts.advanceEvery} s and ` : ''}on POST ${sim.url}/_sim/orders/<ref>/advance; see GET ${sim.url}/_sim/orders`,
      );
      io.out(`Press Ctrl-C to stop (or POST ${sim.url}/_sim/shutdown).`);
      await Promise.race([trap.signalled, sim.stopped()]);
      await sim.close();
      io.out(`${partner} simulator stopped`);
    });
}

/** The NPI registry (issue 13): no credentials, no orders, no webhooks. */
async function simulateNppes(io: Io, opts: SimulateOpts): Promise<void> {
  const extra = Object.entries(opts)
    .filter(([k, v]) => v !== undefined && k !== 'port' && k !== 'host')
    .map(([k]) => flagName(k));
  if (extra.length) throw new CliError(`nppes takes only --port and --host (not ${extra.join(', ')})`, 2);
  const [{ trapStopSignals }, { DEFAULT_PROVIDERS, startNppesSimulator }] = await Promise.all([
    import('../../app/lifecycle.js'),
    import('../../simulators/index.js'),
  ]);
  const trap = trapStopSignals();
  const sim = await startNppesSimulator({ host: opts.host, port: opts.port });
  io.out(`nppes simulator listening on ${sim.url} (GET ${sim.url}/api/?version=2.1&number=<npi>)`);
  io.out(`Registered NPIs: ${DEFAULT_PROVIDERS.map((p) => p.number).join(', ')} (add more with POST ${sim.url}/_sim/providers)`);
  io.out('Press Ctrl-C to stop.');
  await trap.signalled;
  await sim.close();
  io.out('nppes simulator stopped');
}
