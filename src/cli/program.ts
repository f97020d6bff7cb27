import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { projectRoot } from '../config/index.js';
import { printLines, visibleIo, type Io } from './io.js';
import { registerServe } from './commands/serve.command.js';
import { registerDb } from './commands/db.command.js';
import { registerUser } from './commands/user.command.js';
import { registerWebhook } from './commands/webhook.command.js';
import { registerVendor } from './commands/vendor.command.js';
import { registerProduct } from './commands/product.command.js';
import { registerDoctor } from './commands/doctor.command.js';
import { registerOutbox } from './commands/outbox.command.js';
import { registerPartner } from './commands/partner.command.js';
import { registerPartnerCredentials } from './commands/partner-credentials.command.js';
import { registerSimulate } from './commands/simulate.command.js';
import { registerCustomer } from './commands/customer.command.js';
import { registerPriceList } from './commands/price-list.command.js';
import { registerCustomerRead } from './commands/customer-read.command.js';
import { registerCheck } from './commands/check.command.js';
import { registerCompletion } from './commands/completion.command.js';
import { registerAudit } from './commands/audit.command.js';
import { registerKeys } from './commands/keys.command.js';
import { registerRecall } from './commands/recall.command.js';
import { applyExamples } from './examples.js';
import { applyConventions } from './conventions.js';
import { leaveBackgroundWorkUnplugged } from '../shared/composition.js';

/**
 * The nouns whose commands read and write records and queue side effects through the outbox, but
 * run no outbox handler, partner connector, start-up task or job: they load the composition root
 * without its background work (about 0.3 s of CPU less per command; docs/decisions.md, "The test
 * suite's time"). A noun not listed loads all of it.
 */
const ADMIN_ONLY = new Set(['user', 'vendor', 'product', 'doctor', 'customer', 'price-list', 'audit', 'recall', 'webhook', 'keys', 'completion']);

/** The first word after `svc` of the command that runs. */
function nounOf(command: Command): string {
  let noun = command;
  while (noun.parent?.parent) noun = noun.parent;
  return noun.name();
}

/** The whole command tree: `svc <noun> <verb>`, each calling the service the HTTP route calls. */
export function createProgram(given: Io): Command {
  const io = visibleIo(given); // every command's output shows control characters visibly
  const program = new Command('svc')
    .description('Healthcare supply marketplace service: API, worker and admin commands')
    .version((JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version)
    .exitOverride()
    .configureOutput({ writeOut: (s) => printLines(io, s.replace(/\n$/, '')), writeErr: (s) => printLines(io, s.replace(/\n$/, ''), 'err') });
  registerServe(program, io);
  registerDb(program, io);
  registerUser(program, io);
  registerWebhook(program, io);
  registerVendor(program, io);
  registerProduct(program, io);
  registerDoctor(program, io);
  registerOutbox(program, io);
  registerPartnerCredentials(program, io);
  registerPartner(program, io);
  registerSimulate(program, io);
  registerPriceList(program, io);
  registerCustomer(program, io); // svc customer create; customer-read attaches list|show to the same noun
  registerCustomerRead(program, io);
  registerCheck(program, io);
  registerAudit(program, io);
  registerKeys(program, io);
  registerRecall(program, io);
  registerCompletion(program, io);
  applyConventions(program, [
    'user',
    'vendor',
    'product',
    'doctor',
    'partner-credentials',
    'partner',
    'webhook',
    'price-list',
    'product-mapping',
    'customer',
    'audit',
    'recall',
  ]);
  applyExamples(program);
  // the composition root (the registrations every process role shares: models, policy, ports, doc
  // types), and with it the services, load only when a command runs: help, --version and completion
  // stay fast. The background work (outbox handlers, connectors, jobs) loads for the commands that
  // may run some of it, not for the admin nouns of ADMIN_ONLY.
  program.hook('preAction', async (_program, action) => {
    const adminOnly = ADMIN_ONLY.has(nounOf(action));
    if (adminOnly) leaveBackgroundWorkUnplugged();
    const { plugBackgroundWork } = await import('../modules.js');
    if (!adminOnly) await plugBackgroundWork();
  });
  // later domains: registerVendor, registerProduct, registerWebhook, …
  return program;
}
