import type { Command } from 'commander';
import { systemActor, ROLES, type Role } from '../../auth/actor.js';
import { generateApiKeys, setPassword } from '../../auth/credentials.service.js';
import { createUser } from '../../users/users.service.js';
import { openDatabase } from '../context.js';
import { CliError, type Io } from '../io.js';
import { askPassword } from '../prompts.js';

function parseRoles(value: string): Role[] {
  const roles = value
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  for (const r of roles) if (!(ROLES as readonly string[]).includes(r)) throw new CliError(`Unknown role "${r}" (roles: ${ROLES.join(', ')})`, 2);
  return roles as Role[];
}

export function registerUser(program: Command, io: Io): void {
  const user = program.command('user').description('Users, passwords and API keys');
  user
    .command('create')
    .description('Create a user with roles')
    .argument('<email>', 'login e-mail')
    .requiredOption('--roles <roles>', `comma-separated roles (${ROLES.join(', ')})`)
    .option('--name <full name>', 'display name')
    .option('--password <password>', 'password (prompted when omitted on a terminal; or SVC_PASSWORD)')
    .option('--customer <customer>', 'customer id, for a Customer user')
    .option('--sales-person <name>', 'sales person, for a rep or manager')
    .action(async (email: string, opts: { roles: string; name?: string; password?: string; customer?: string; salesPerson?: string }) => {
      const roles = parseRoles(opts.roles);
      const password = opts.password ?? io.env.SVC_PASSWORD ?? (await askPassword(io, `Password for ${email}`));
      await openDatabase(io);
      const created = await createUser(systemActor('cli:user-create'), {
        email,
        full_name: opts.name,
        password,
        roles,
        customer: opts.customer,
        sales_person: opts.salesPerson,
      });
      io.out(`Created ${created.email} (${created.roles.join(', ')})`);
    });
  user
    .command('generate-keys')
    .description('Generate (or regenerate) the API key and secret of a user; the secret is shown once')
    .argument('<email>', 'the user')
    .action(async (email: string) => {
      await openDatabase(io);
      const keys = await generateApiKeys(systemActor('cli:user-generate-keys'), { email });
      io.out(`api_key:    ${keys.api_key}`);
      io.out(`api_secret: ${keys.api_secret}`);
      io.out(`Send: Authorization: token ${keys.api_key}:<api_secret>  (the secret is not shown again)`);
    });
  user
    .command('set-password')
    .description("Set a user's password (ends its sessions)")
    .argument('<email>', 'the user')
    .option('--password <password>', 'new password (prompted when omitted on a terminal; or SVC_PASSWORD)')
    .action(async (email: string, opts: { password?: string }) => {
      const password = opts.password ?? io.env.SVC_PASSWORD ?? (await askPassword(io, `New password for ${email}`));
      await openDatabase(io);
      await setPassword(systemActor('cli:user-set-password'), email, password);
      io.out(`Password set for ${email}`);
    });
}
