import { Command } from 'commander';
import type { Io } from './io.js';
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
// the composition root: the registrations every process role shares (handlers, jobs, doc types)
import '../modules.js';

/** The whole command tree: `svc <noun> <verb>`, each calling the service the HTTP route calls. */
export function createProgram(io: Io): Command {
  const program = new Command('svc')
    .description('Healthcare supply marketplace service: API, worker and admin commands')
    .version('0.1.0')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.replace(/\n$/, '')), writeErr: (s) => io.err(s.replace(/\n$/, '')) });
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
  registerCustomer(program, io);
  // later domains: registerVendor, registerProduct, registerWebhook, …
  return program;
}
