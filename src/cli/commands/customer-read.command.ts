/**
 * `svc customer list|show`: attaches to the `customer` noun, creating it when `svc customer create`
 * (customer.command.ts) has not, so the two files register under one noun in either order.
 */
import type { Command } from 'commander';
import { openDatabase } from '../context.js';
import type { Io } from '../io.js';
import { askArgument } from '../prompts.js';
import { actorOf, common, positiveInt, fields, json, table, type CommonOptions } from '../conventions.js';

// the services load when a command runs (svc --help never loads them)
const customers = () => import('../../org/customer-read.service.js');

/** The `customer` noun of the program, created once by whichever file registers first. */
export function customerNoun(program: Command): Command {
  return program.commands.find((c) => c.name() === 'customer') ?? program.command('customer').description('Customer accounts');
}

export function registerCustomerRead(program: Command, io: Io): void {
  const customer = customerNoun(program);
  common(
    customer
      .command('list')
      .description('List customer accounts you may see (name, territory, price list, assigned rep)')
      .option('--territory <territory>', 'only this territory')
      .option('--rep <sales person>', 'only customers of this assigned rep')
      .option('--search <text>', 'name contains')
      .option('--limit <n>', 'at most n rows (default 200)', positiveInt),
    { json: true },
  ).action(async (opts: CommonOptions & { territory?: string; rep?: string; search?: string; limit?: number }) => {
    await openDatabase(io);
    const rows = await (await customers()).listCustomers(await actorOf(io, opts), opts);
    if (opts.json) return json(io, rows);
    table(
      io,
      ['customer', 'name', 'territory', 'price list', 'rep', 'disabled'],
      rows.map((r) => [r.name, r.customer_name, r.territory, r.price_list, r.assigned_rep, r.disabled ? 'yes' : 'no']),
    );
  });
  common(
    customer
      .command('show')
      .description('One customer account with its addresses')
      .argument('[customer]', 'customer id, e.g. CUST-0001 (asked for on a terminal when left out)'),
    {
      json: true,
    },
  ).action(async (given: string | undefined, opts: CommonOptions) => {
    const name = await askArgument(io, given, 'customer', 'Customer id');
    await openDatabase(io);
    const c = await (await customers()).getCustomer(await actorOf(io, opts), name);
    if (opts.json) return json(io, c);
    fields(io, {
      customer: c.name,
      name: c.customer_name,
      type: c.customer_type,
      territory: c.territory,
      'price list': c.price_list,
      'assigned rep': c.assigned_rep,
      email: c.email,
      phone: c.phone,
      disabled: c.disabled ? 'yes' : 'no',
    });
    io.out('');
    if (c.addresses.length === 0) return io.out('No addresses');
    table(
      io,
      ['address', 'title', 'shipping', 'primary', 'lines'],
      c.addresses.map((a) => [a.name, a.title, a.shipping ? 'yes' : 'no', a.primary ? 'yes' : 'no', a.lines]),
    );
  });
}
