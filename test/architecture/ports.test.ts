/**
 * The ports through which a lower domain reaches a higher one (docs/decisions.md, "Domain dependency
 * order (issue 11)"): users and shared ask the policy, files asks orders for a file's order parties,
 * webhooks asks vendors for a target and vendor-api for the attempt log, org's Customer and Address
 * document types ask sales to create accounts. Until src/modules.ts has
 * plugged them, each fails closed (throws); once it has, each answers with its owner's function.
 * This file imports src/modules.ts only in the second test (and nothing that imports it: not the
 * test app), so the first sees a process without it.
 */
import test from 'ava';
import { createTestDatabase } from '../helpers/db.js';
import { systemActor } from '../../src/auth/actor.js';
import { loadConfig } from '../../src/config/index.js';
import { closeDatabase, initDatabase } from '../../src/db/sequelize.js';
import { orderPartiesOf } from '../../src/files/attachments.js';
import { initRuntime } from '../../src/shared/runtime.js';
import { createUser } from '../../src/users/users.service.js';
import { deliveryAttempts, lastHttpStatusOf, logOutboundAttempt } from '../../src/vendor-api/api-log.service.js';
import { webhookTargetOf } from '../../src/vendors/webhook-target.js';
import { webhookPorts } from '../../src/webhooks/webhook-ports.js';
import { customerAccounts } from '../../src/org/customer-accounts.port.js';
import { createCustomerAccount, createCustomerAddress } from '../../src/sales/customer-accounts.service.js';
import { itemRecallSql } from '../../src/catalog/item-recall.js';
import { allLotsRecallSql } from '../../src/recalls/recall-reads.js';

test.before(async () => {
  const config = loadConfig({ ...process.env, SVC_ENV: 'test', DATABASE_URL: await createTestDatabase(), SVC_LOG_LEVEL: 'warn' });
  initRuntime(config);
  initDatabase(config);
});
test.after.always(async () => {
  await closeDatabase();
});

test.serial('unplugged, every port refuses to answer (nothing decided or sent blind)', async (t) => {
  await t.throwsAsync(() => createUser(systemActor('test:ports'), { email: 'unplugged@test.local', roles: ['Customer'] }), {
    message: /no access policy plugged in/,
  });
  t.throws(() => orderPartiesOf('SO-NONE'), { message: /no order parties lookup plugged in/ });
  t.throws(() => webhookPorts(), { message: /no webhook ports plugged in/ });
  t.throws(() => customerAccounts(), { message: /no customer account service plugged in/ });
});

test.serial('src/modules.ts plugs each port with its owner’s functions', async (t) => {
  await import('../../src/modules.js');
  const ports = webhookPorts();
  t.is(ports.targetOf, webhookTargetOf, 'vendors: the vendor’s URL and secret');
  t.is(ports.logAttempt, logOutboundAttempt, 'vendor-api: the Vendor API Log');
  t.is(ports.lastHttpStatusOf, lastHttpStatusOf);
  t.is(ports.attemptsOf, deliveryAttempts);
  t.is(customerAccounts().createCustomer, createCustomerAccount, 'sales: the customer account service behind POST /api/resource/Customer');
  t.is(customerAccounts().createAddress, createCustomerAddress);
  t.is(await orderPartiesOf('SO-NONE'), undefined, 'orders answers: no such order');
  t.is(itemRecallSql('i.item_code'), allLotsRecallSql('i.item_code'), 'recalls: an item’s open all-lots recall, read by the order statements');
  const user = await createUser(systemActor('test:ports'), { email: 'plugged@test.local', roles: ['Customer'] });
  t.is(user.email, 'plugged@test.local', 'users asks the policy through the access port');
});
