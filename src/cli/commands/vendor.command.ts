import type { Command } from 'commander';
import type { VendorProfileView } from '../../vendors/vendor-profile.service.js';
import { formatInstant } from '../../shared/time.js';
import { openDatabase } from '../context.js';
import { CliError, type Io } from '../io.js';
import { confirmOrAbort, pickOne } from '../prompts.js';
import { actorOf, common, fields, json, oneOf, table, yesNo, type CommonOptions, cliActor } from '../conventions.js';

// the services load when a command runs (svc --help never loads them)
const profiles = () => import('../../vendors/vendor-profile.service.js');
const stockRequests = () => import('../../vendors/stock-request.service.js');

/**
 * What an admin runs next so that the vendor can use the interface (approved, API enabled,
 * credentials issued), with the real command names; undefined once nothing is left.
 */
export function nextStep(v: Pick<VendorProfileView, 'name' | 'status' | 'suspended' | 'api_enabled' | 'client_id'>): string | undefined {
  if (v.status !== 'Approved') return undefined;
  const steps = [
    v.suspended ? `svc vendor unsuspend ${v.name}` : null,
    v.api_enabled ? null : `svc vendor enable-api ${v.name}`,
    v.client_id ? null : `svc vendor credentials ${v.name} (the client_id and client_secret for auth.token)`,
  ].filter(Boolean);
  return steps.length ? `Next: ${steps.join(', then ')}` : undefined;
}

/** The profiles a verb applies to, offered in its list: approve and reject the registrations waiting. */
const PICKABLE: Record<string, (v: VendorProfileView) => boolean> = {
  approve: (v) => v.status === 'Pending Approval',
  reject: (v) => v.status === 'Pending Approval',
  suspend: (v) => !v.suspended,
  unsuspend: (v) => v.suspended,
  'enable-api': (v) => v.status === 'Approved' && !v.api_enabled,
  'disable-api': (v) => v.api_enabled,
};

/** The vendor argument: given, else (on a terminal) picked from the profiles the verb applies to. */
async function vendorArgument(io: Io, given: string | undefined, verb: string): Promise<string> {
  if (given !== undefined && given.trim() !== '') return given;
  if (!io.interactive) throw new CliError("missing required argument 'vendor'", 2);
  await openDatabase(io);
  const choices = (await (await profiles()).listVendors(await cliActor(io))).filter(PICKABLE[verb] ?? (() => true));
  if (choices.length === 0) throw new CliError(`No Vendor Profile to ${verb}`, 1);
  return pickOne(
    io,
    `Vendor Profile to ${verb}`,
    choices.map((v) => ({ value: v.name, name: `${v.name}  ${v.vendor_name}  (${v.status})` })),
  );
}

/** `svc vendor list|reject|suspend|unsuspend|enable-api|disable-api|credentials|settings|webhook set|stock-request …`. */
export function registerVendor(program: Command, io: Io): void {
  const vendor = program.command('vendor').description('Vendor Profiles: approval, suspension, API access, credentials, webhooks');
  common(vendor.command('list').description('List Vendor Profiles'), { json: true }).action(async (opts: CommonOptions) => {
    await openDatabase(io);
    const rows = await (await profiles()).listVendors(await cliActor(io));
    if (opts.json) return json(io, rows);
    table(
      io,
      ['vendor', 'status', 'suspended', 'api', 'scope', 'auto-approve', 'client_id', 'name'],
      rows.map((v) => [
        v.name,
        v.status,
        v.suspended ? 'yes' : 'no',
        v.api_enabled ? 'on' : 'off',
        v.scope,
        v.auto_approve ? 'yes' : 'no',
        v.client_id,
        v.vendor_name,
      ]),
    );
  });
  const simple: [string, string, (name: string) => Promise<VendorProfileView>][] = [
    ['approve', 'Approve a Vendor Profile', async (n) => (await profiles()).approveVendor(await cliActor(io), n)],
    ['reject', 'Reject a vendor registration', async (n) => (await profiles()).rejectVendor(await cliActor(io), n)],
    ['suspend', 'Suspend a vendor (its tokens stop working at once)', async (n) => (await profiles()).setSuspended(await cliActor(io), n, true)],
    ['unsuspend', 'Lift a suspension', async (n) => (await profiles()).setSuspended(await cliActor(io), n, false)],
    ['enable-api', 'Enable the vendor interface v1', async (n) => (await profiles()).setApiEnabled(await cliActor(io), n, true)],
    ['disable-api', 'Disable the vendor interface v1', async (n) => (await profiles()).setApiEnabled(await cliActor(io), n, false)],
  ];
  for (const [verb, description, run] of simple) {
    // the argument is optional to commander: on a terminal a missing one is picked from a list, else it is the usage error
    common(vendor.command(verb).description(description).argument('[vendor]', 'Vendor Profile name (picked from a list on a terminal)'), { json: true }).action(
      async (given: string | undefined, opts: CommonOptions) => {
        const name = await vendorArgument(io, given, verb);
        await openDatabase(io);
        const v = await run(name);
        if (opts.json) return json(io, v);
        io.out(`${name}: ${v.status}${v.suspended ? ', suspended' : ''}, API ${v.api_enabled ? 'enabled' : 'disabled'}`);
        const next = verb === 'approve' || verb === 'enable-api' ? nextStep(v) : undefined;
        if (next) io.out(next);
      },
    );
  }
  common(vendor.command('credentials').description('Generate (or regenerate) client_id and client_secret; the secret is shown once').argument('<vendor>'), {
    json: true,
  }).action(async (name: string, opts: CommonOptions) => {
    await openDatabase(io);
    const c = await (await profiles()).generateCredentials(await cliActor(io), name);
    if (opts.json) return json(io, c); // the secret once, as in the table
    io.out(`client_id:     ${c.client_id}`);
    io.out(`client_secret: ${c.client_secret}`);
    io.out('The secret is not shown again; earlier tokens and secrets no longer work.');
  });
  common(vendor.command('settings').description('Vendor settings').argument('<vendor>'), { json: true })
    .option('--auto-approve <yes|no>', 'approve new products without review', yesNo)
    .option('--scope <scope>', 'standard, 503A or 503B', oneOf(['standard', '503A', '503B']))
    .option('--separate-skus <yes|no>', 'keep vendor SKUs separate from item codes', yesNo)
    .option('--sku-prefix <prefix>', 'item code prefix for separate SKUs')
    .action(async (name: string, opts: CommonOptions & { autoApprove?: boolean; scope?: string; separateSkus?: boolean; skuPrefix?: string }) => {
      await openDatabase(io);
      const settings = Object.fromEntries(
        Object.entries({ auto_approve: opts.autoApprove, scope: opts.scope, separate_skus: opts.separateSkus, sku_prefix: opts.skuPrefix }).filter(
          ([, v]) => v !== undefined,
        ),
      );
      const v = await (await profiles()).updateVendorSettings(await cliActor(io), name, settings);
      if (opts.json) return json(io, v);
      io.out(`${name}: scope ${v.scope}, auto-approve ${v.auto_approve ? 'on' : 'off'}, separate SKUs ${v.separate_skus ? `on (${v.sku_prefix}-)` : 'off'}`);
    });
  common(vendor.command('show').description('One vendor: profile, status, API and webhook state, last API calls, failed deliveries').argument('<vendor>'), {
    json: true,
  }).action(async (name: string, opts: CommonOptions) => {
    await openDatabase(io);
    const { vendorOverview } = await import('../../vendor-api/vendor-overview.service.js');
    const v = await vendorOverview(await actorOf(io, opts), name);
    if (opts.json) return json(io, v);
    const p = v.profile;
    fields(io, {
      vendor: p.name,
      name: p.vendor_name,
      email: p.email,
      status: `${p.status}${p.suspended ? ', SUSPENDED' : ''}`,
      scope: p.scope,
      'auto-approve': p.auto_approve ? 'yes' : 'no',
      api: v.api_state,
      client_id: p.client_id,
      webhook: v.webhook_state,
      approved: p.approved_at ? `${formatInstant(p.approved_at)} by ${p.approved_by ?? '-'}` : null,
    });
    io.out('');
    io.out(`Last API calls (${v.last_calls.length}):`);
    if (v.last_calls.length)
      table(
        io,
        ['at', 'function', 'status', 'http', 'ms'],
        v.last_calls.map((c) => [formatInstant(c.at), c.function, c.status, c.http_status, c.duration_ms]),
      );
    io.out('');
    io.out(`Failed webhook deliveries (${v.failed_deliveries.length}):`);
    if (v.failed_deliveries.length)
      table(
        io,
        ['id', 'event', 'attempts', 'last http', 'error'],
        v.failed_deliveries.map((d) => [d.delivery_id, d.event, d.attempts, d.last_http_status, d.last_error]),
      );
  });
  const webhook = vendor.command('webhook').description('The Webhook URL of a vendor');
  common(
    webhook
      .command('rotate-secret')
      .description("A new webhook secret for the vendor's URL (shown once; the old one stops signing at once)")
      .argument('<vendor>'),
    {
      json: true,
      yes: true,
    },
  ).action(async (name: string, opts: CommonOptions) => {
    await openDatabase(io);
    const profile = await (await profiles()).getVendor(await actorOf(io, opts), name); // a wrong name is said before any confirmation
    if (!profile.webhook_url) throw new CliError(`${name} has no Webhook URL: set one with svc vendor webhook set ${name} <url>`, 1);
    if (!opts.yes) await confirmOrAbort(io, `Rotate the webhook secret of ${name}? Its receiver must switch to the new secret.`);
    const r = await (await profiles()).rotateWebhookSecret(await actorOf(io, opts), name);
    if (opts.json) return json(io, r);
    io.out(`${name}: new webhook secret for ${r.webhook_url}`);
    io.out(`webhook secret: ${r.webhook_secret}  (verify X-Svc-Signature with it; not shown again)`);
  });
  common(
    webhook
      .command('set')
      .description("Point a vendor's webhooks at a URL (a secret is generated and shown once when none exists)")
      .argument('<vendor>')
      .argument('<url>'),
    { json: true },
  )
    .option('--rotate-secret', 'generate a new webhook secret')
    .action(async (name: string, url: string, opts: CommonOptions & { rotateSecret?: boolean }) => {
      await openDatabase(io);
      const r = await (await profiles()).setWebhook(await cliActor(io), name, url, { rotateSecret: opts.rotateSecret });
      if (opts.json) return json(io, r); // a new secret once, as in the table
      io.out(`${name}: webhook URL ${r.webhook_url}`);
      if (r.webhook_secret) io.out(`webhook secret: ${r.webhook_secret}  (verify X-Svc-Signature with it; not shown again)`);
    });
  common(webhook.command('clear').description('Remove the Webhook URL of a vendor').argument('<vendor>'), { json: true }).action(
    async (name: string, opts: CommonOptions) => {
      await openDatabase(io);
      const r = await (await profiles()).setWebhook(await cliActor(io), name, null);
      if (opts.json) return json(io, r);
      io.out(`${name}: webhook URL removed`);
    },
  );
  const requests = vendor.command('stock-request').description('Stock update requests (Marketplace Officer)');
  common(requests.command('list').description('Stock update requests, newest first'), { json: true })
    .option('--status <status>', 'Requested, Approved or Rejected', oneOf(['Requested', 'Approved', 'Rejected']))
    .action(async (opts: CommonOptions & { status?: string }) => {
      await openDatabase(io);
      const rows = await (await stockRequests()).listStockUpdateRequests(await cliActor(io), { status: opts.status });
      if (opts.json) return json(io, rows);
      table(
        io,
        ['request', 'status', 'vendor', 'action', 'qty', 'item', 'warehouse', 'reason'],
        rows.map((r) => [r.name, r.status, r.vendor, r.action, r.quantity, r.item, r.warehouse, r.reason]),
      );
    });
  for (const decision of ['approve', 'reject'] as const) {
    common(
      requests
        .command(decision)
        .description(`${decision === 'approve' ? 'Approve' : 'Reject'} a stock update request`)
        .argument('<name>', 'e.g. SUR-00001'),
      {
        json: true,
      },
    )
      .option('--reason <text>', 'note kept with the decision')
      .action(async (name: string, opts: CommonOptions & { reason?: string }) => {
        await openDatabase(io);
        const r = await (await stockRequests()).decideStockUpdateRequest(await cliActor(io), name, decision, opts.reason);
        if (opts.json) return json(io, r);
        io.out(`${name}: ${r.status}`);
      });
  }
}
