import type { Command } from 'commander';
import type { Finding } from '../../app/check.service.js';
import { ConfigError, loadConfig } from '../../config/index.js';
import { openDatabase, unreachableDatabase } from '../context.js';
import { CliError, type Io } from '../io.js';
import { common, json, type CommonOptions } from '../conventions.js';

const MARK = { ok: 'ok  ', warn: 'WARN', fail: 'FAIL' } as const;

/** The fix for a refused setting: a weak or example secret is replaced by a generated one. */
function configurationFix(message: string): string {
  if (/^Invalid setting (SVC_SECRET_KEY|SVC_ENCRYPTION_KEY):/.test(message))
    return 'set it to a generated value: openssl rand -base64 48 (SVC_SECRET_KEY), openssl rand -base64 32 (SVC_ENCRYPTION_KEY); docs/operations.md "Secrets"';
  return 'fix the variable named (docs/operations.md "Configuration")';
}

/** `svc check [--json]`: configuration, database, migrations, worker, outbox, partners, mail. */
export function registerCheck(program: Command, io: Io): void {
  common(
    program
      .command('check')
      .description(
        'Health check: configuration, database, migrations, worker heartbeat, outbox backlog, partner credentials, mail; exits 1 when something is wrong (--json: {ok, findings}, for monitors)',
      ),
    { json: true, as: false },
  ).action(async (opts: CommonOptions) => {
    const findings: Finding[] = [];
    try {
      loadConfig(io.env);
      findings.push({ check: 'configuration', level: 'ok', detail: 'valid' });
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      findings.push({ check: 'configuration', level: 'fail', detail: err.message, fix: configurationFix(err.message) });
    }
    if (findings[0].level === 'ok') {
      try {
        const config = await openDatabase(io);
        const { runChecks } = await import('../../app/check.service.js');
        findings.push(...(await runChecks(config)));
      } catch (err) {
        findings.push({
          check: 'database',
          level: 'fail',
          detail: (await unreachableDatabase(err)) ?? `not reachable: ${(err as Error).message}`,
          fix: 'check DATABASE_URL and that PostgreSQL is running and accepts this user',
        });
      }
    }
    const ok = findings.every((f) => f.level !== 'fail');
    if (opts.json) json(io, { ok, findings });
    else {
      const width = Math.max(...findings.map((f) => f.check.length));
      for (const f of findings) {
        io.out(`${MARK[f.level]}  ${f.check.padEnd(width)}  ${f.detail}`);
        if (f.fix && f.level !== 'ok') io.out(`${' '.repeat(width + 8)}fix: ${f.fix}`);
      }
    }
    if (!ok) throw new CliError(`${findings.filter((f) => f.level === 'fail').length} problem(s) found`, 1);
  });
}
