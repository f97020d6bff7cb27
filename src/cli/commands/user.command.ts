import type { Command } from 'commander';
import { ROLES, type Role } from '../../auth/actor.js';
import { formatInstant } from '../../shared/time.js';
import { openDatabase } from '../context.js';
import { CliError, type Io } from '../io.js';
import { askArgument, askPassword, confirmOrAbort } from '../prompts.js';
import { actorOf, common, oneOf, someOf, json, say, table, type CommonOptions, cliActor } from '../conventions.js';

// the services load when a command runs (svc --help never loads them)
const credentials = () => import('../../auth/credentials.service.js');
const userAdmin = () => import('../../audit/user-admin.service.js');

/** Refuses an address no user has (as the service would, after the confirmation) before asking to confirm. */
async function existingUser(email: string): Promise<void> {
  const { findUserByEmail } = await import('../../users/users.service.js');
  if (!(await findUserByEmail(email))) throw new CliError(`User ${email} not found`, 1);
}

export function registerUser(program: Command, io: Io): void {
  const user = program.command('user').description('Users, passwords and API keys');
  common(user.command('create').description('Create a user with roles').argument('<email>', 'login e-mail'), { json: true })
    .requiredOption('--roles <roles>', `comma-separated roles (${ROLES.join(', ')})`, someOf(ROLES))
    .option('--name <full name>', 'display name')
    .option('--password <password>', 'password (prompted when omitted on a terminal; or SVC_PASSWORD)')
    .option('--customer <customer>', 'customer id, for a Customer user')
    .option('--sales-person <name>', 'sales person, for a rep or manager')
    .action(async (email: string, opts: CommonOptions & { roles: Role[]; name?: string; password?: string; customer?: string; salesPerson?: string }) => {
      const roles = opts.roles;
      const password = opts.password ?? io.env.SVC_PASSWORD ?? (await askPassword(io, `Password for ${email}`));
      await openDatabase(io);
      const { createUser } = await import('../../users/users.service.js');
      const created = await createUser(await cliActor(io), {
        email,
        full_name: opts.name,
        password,
        roles,
        customer: opts.customer,
        sales_person: opts.salesPerson,
      });
      if (opts.json) return json(io, created);
      io.out(`Created ${created.email} (${created.roles.join(', ')})`);
    });
  common(
    user
      .command('generate-keys')
      .description('Generate (or regenerate) the API key and secret of a user; the secret is shown once')
      .argument('<email>', 'the user'),
    { json: true },
  ).action(async (email: string, opts: CommonOptions) => {
    await openDatabase(io);
    const keys = await (await credentials()).generateApiKeys(await cliActor(io), { email });
    if (opts.json) return json(io, { email, ...keys }); // the secret once, as in the table
    io.out(`api_key:    ${keys.api_key}`);
    io.out(`api_secret: ${keys.api_secret}`);
    io.out(`Send: Authorization: token ${keys.api_key}:<api_secret>  (the secret is not shown again)`);
  });
  common(user.command('set-password').description("Set a user's password (ends its sessions)").argument('<email>', 'the user'), { json: true })
    .option('--password <password>', 'new password (prompted when omitted on a terminal; or SVC_PASSWORD)')
    .action(async (email: string, opts: CommonOptions & { password?: string }) => {
      const password = opts.password ?? io.env.SVC_PASSWORD ?? (await askPassword(io, `New password for ${email}`));
      await openDatabase(io);
      await (await credentials()).setPassword(await cliActor(io), email, password);
      if (opts.json) return json(io, { email, password_set: true });
      io.out(`Password set for ${email}`);
    });
  common(
    user
      .command('list')
      .description('List users with their roles and whether they are enabled')
      .option('--role <role>', `only users holding this role (${ROLES.join(', ')})`, oneOf(ROLES)),
    { json: true },
  ).action(async (opts: CommonOptions & { role?: string }) => {
    await openDatabase(io);
    const { listUsers } = await import('../../users/accounts.service.js');
    const rows = await listUsers(await actorOf(io, opts), { role: opts.role });
    if (opts.json) return json(io, rows);
    table(
      io,
      ['email', 'name', 'roles', 'enabled', 'customer / sales person / vendor', 'last login'],
      rows.map((u) => [
        u.email,
        u.full_name,
        u.roles.join(','),
        u.enabled ? 'yes' : 'no',
        u.customer ?? u.sales_person ?? u.vendor,
        u.last_login_at ? formatInstant(u.last_login_at) : null,
      ]),
    );
  });
  for (const enabled of [false, true]) {
    common(
      user
        .command(enabled ? 'enable' : 'disable')
        .description(
          enabled
            ? 'Enable a disabled user (it may sign in again)'
            : 'Disable a user: its sessions and API keys end at once (API keys within SVC_API_KEY_CACHE_MS if the serve notification connection is down)',
        )
        .argument('[email]', 'the user (asked for on a terminal when left out)'),
      { json: true, yes: !enabled },
    ).action(async (given: string | undefined, opts: CommonOptions) => {
      const email = await askArgument(io, given, 'email', 'User e-mail');
      await openDatabase(io);
      await existingUser(email); // a wrong address is said before any confirmation
      if (!enabled && !opts.yes) await confirmOrAbort(io, `Disable ${email}? Its sessions end and its API keys stop working.`);
      const r = await (await userAdmin()).setUserEnabled(await actorOf(io, opts), email, enabled);
      if (opts.json) return json(io, r);
      say(
        io,
        opts,
        `${email}: ${enabled ? 'enabled' : 'disabled'}${r.changed ? '' : ' (already)'}${r.sessions_ended ? `, ${r.sessions_ended} session(s) ended` : ''}`,
      );
    });
  }
  common(
    user
      .command('revoke-keys')
      .description(
        'Revoke every API key of a user (its scripts stop at once, within SVC_API_KEY_CACHE_MS if the serve notification connection is down; sign-in is unaffected)',
      )
      .argument('[email]', 'the user (asked for on a terminal when left out)'),
    {
      json: true,
      yes: true,
    },
  ).action(async (given: string | undefined, opts: CommonOptions) => {
    const email = await askArgument(io, given, 'email', 'User e-mail');
    await openDatabase(io);
    await existingUser(email);
    if (!opts.yes) await confirmOrAbort(io, `Revoke every API key of ${email}?`);
    const r = await (await userAdmin()).revokeApiKeys(await actorOf(io, opts), email);
    if (opts.json) return json(io, r);
    say(io, opts, `${email}: ${r.revoked} API key(s) revoked`);
  });
}
