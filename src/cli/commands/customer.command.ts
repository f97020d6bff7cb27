import type { Command } from 'commander';
import { formatInstant } from '../../shared/time.js';
import { openDatabase } from '../context.js';
import { CliError, type Io } from '../io.js';
import { askValue } from '../prompts.js';
import { actorOf, common, oneOf, json, type CommonOptions } from '../conventions.js';

interface CreateOpts extends CommonOptions {
  customerName?: string;
  customerType?: string;
  territory?: string;
  priceList?: string;
  assignedRep?: string;
  email?: string;
  phone?: string;
  addressLine1?: string;
  addressLine2?: string;
  city?: string;
  state?: string;
  pincode?: string;
  country?: string;
  /** commander's --no-invite: false when given, else true */
  invite: boolean;
}

/** The patient demographics flags of create and update (issue 26). */
interface PatientOpts {
  firstName?: string;
  lastName?: string;
  dateOfBirth?: string;
  gender?: string;
}

const GENDERS = ['female', 'male', 'other', 'unknown'] as const;

/** Adds the Customer's patient demographics flags (encrypted, audited; only for those with the need). */
function patientOptions(cmd: Command): Command {
  return cmd
    .option('--first-name <name>', "the Customer's patient: first name (patient data: encrypted, audited)")
    .option('--last-name <name>', "the Customer's patient: last name")
    .option('--date-of-birth <YYYY-MM-DD>', "the Customer's patient: date of birth (svc.rxpartner.ensure_patient needs it)")
    .option('--gender <gender>', "the Customer's patient: gender", oneOf(GENDERS));
}

/** The demographics flags given, under their API names ('' clears one). */
function patientBody(opts: PatientOpts): Record<string, string> {
  const body: Record<string, string | undefined> = {
    first_name: opts.firstName,
    last_name: opts.lastName,
    date_of_birth: opts.dateOfBirth,
    gender: opts.gender,
  };
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as Record<string, string>;
}

/** On a terminal, asks for what is required and missing (the name, and the address when one was begun or none given). */
async function promptMissing(io: Io, opts: CreateOpts): Promise<void> {
  if (!opts.customerName) {
    if (!io.interactive) throw new CliError('No customer name: pass --customer-name', 2);
    opts.customerName = await askValue(io, 'Customer name:', { secret: false, optional: false, flag: 'customer-name' });
  }
  if (!io.interactive) {
    if ((opts.addressLine1 === undefined) !== (opts.city === undefined)) throw new CliError('A shipping address needs both --address-line1 and --city', 2);
    return;
  }
  opts.addressLine1 ??= await askValue(io, 'Shipping address line 1 (empty: none):', { secret: false, optional: true, flag: 'address-line1' });
  if (opts.addressLine1 !== undefined) {
    opts.city ??= await askValue(io, 'City:', { secret: false, optional: false, flag: 'city' });
    opts.state ??= await askValue(io, 'State (optional):', { secret: false, optional: true, flag: 'state' });
    opts.pincode ??= await askValue(io, 'ZIP code (optional):', { secret: false, optional: true, flag: 'pincode' });
  }
}

export function registerCustomer(program: Command, io: Io): void {
  const customer = program.command('customer').description('Customer accounts (created by the sales team)');
  const create = common(
    customer
      .command('create')
      .description(
        'Create a customer account (the service behind POST /api/resource/Customer) and, with --email, its login, invited by e-mail; prompts for missing input on a terminal',
      ),
    { json: true },
  )
    .option('--customer-name <name>', 'the clinic or practice (prompted on a terminal)')
    .option('--customer-type <type>', 'Company (default) or Individual', oneOf(['Company', 'Individual']))
    .option('--territory <territory>', "territory (default: the acting rep's own)")
    .option('--price-list <list>', 'Price List (default Standard Selling); a rep gives a contract list only if it already governs one of its customers')
    .option('--assigned-rep <sales person>', 'assigned rep (a rep acting with --as becomes it)')
    .option('--email <email>', "contact e-mail; also the customer's login, invited by e-mail (see --no-invite)")
    .option('--phone <phone>', 'phone')
    .option('--address-line1 <line>', 'shipping address, first line')
    .option('--address-line2 <line>', 'shipping address, second line')
    .option('--city <city>', 'shipping address city')
    .option('--state <state>', 'shipping address state')
    .option('--pincode <zip>', 'shipping address ZIP code')
    .option('--country <country>', 'shipping address country (default United States)')
    .option('--no-invite', 'with --email: create no login and send no invitation (by default the login is created and invited)');
  patientOptions(create).action(async (opts: CreateOpts & PatientOpts) => {
    await promptMissing(io, opts);
    await openDatabase(io);
    const actor = await actorOf(io, opts); // a sales user's territory, team and price-list rules apply
    const { createCustomerAccount } = await import('../../sales/customer-accounts.service.js');
    const doc = await createCustomerAccount(actor, {
      customer_name: opts.customerName,
      customer_type: opts.customerType,
      territory: opts.territory,
      default_price_list: opts.priceList,
      assigned_rep: opts.assignedRep,
      email_id: opts.email,
      mobile_no: opts.phone,
      // the login and its invitation: on by default when there is a contact e-mail (issue 15)
      send_invitation: opts.invite && opts.email !== undefined && opts.email !== '',
      ...patientBody(opts),
      shipping_address:
        opts.addressLine1 === undefined
          ? undefined
          : {
              address_line1: opts.addressLine1,
              address_line2: opts.addressLine2,
              city: opts.city,
              state: opts.state,
              pincode: opts.pincode,
              country: opts.country,
            },
    });
    if (opts.json) return json(io, { ...doc, invitation_queued: doc.invitation_queued === true });
    io.out(
      `Created ${String(doc.name)} ${String(doc.customer_name)} (territory ${String(doc.territory ?? '-')}, price list ${String(doc.price_list)}, assigned rep ${String(doc.assigned_rep ?? '-')})`,
    );
    if (opts.addressLine1 !== undefined) io.out(`Shipping address ${String(doc.name)}-Shipping`);
    io.out(
      doc.invitation_queued
        ? `Login ${String(doc.login_email)} created; invitation queued (expires ${formatInstant(String(doc.invitation_expires_at))})`
        : 'No login invitation queued',
    );
  });
  registerCustomerUpdate(customer, io);
}

/** svc customer update: the Customer's patient demographics (the service behind PUT /api/resource/Customer/{name}). */
function registerCustomerUpdate(customer: Command, io: Io): void {
  const update = common(
    customer
      .command('update')
      .description(
        "Set the Customer's patient demographics (the service behind PUT /api/resource/Customer/{name}); an empty value clears one. Only the clinic's own users, operations and admins",
      )
      .argument('<customer>', 'customer id, e.g. CUST-0001'),
    { json: true },
  );
  patientOptions(update).action(async (name: string, opts: CommonOptions & PatientOpts) => {
    const body = patientBody(opts);
    if (!Object.keys(body).length) throw new CliError('Nothing to change: pass --first-name, --last-name, --date-of-birth or --gender', 2);
    await openDatabase(io);
    const actor = await actorOf(io, opts);
    const { updateCustomerDocument } = await import('../../sales/customer-demographics.service.js');
    const doc = await updateCustomerDocument(actor, name, body);
    if (opts.json) return json(io, doc);
    io.out(`Updated ${String(doc.name)}: ${Object.keys(body).join(', ')} (patient data, audited)`);
  });
}
