/**
 * The composition root shared by every process role (serve, worker, CLI): the models, document types, the
 * policy behind the shared registries, outbox handlers and periodic jobs, each registered here
 * explicitly. A job or handler file only exports what it is; nothing registers itself on import.
 *
 * Outbox kinds without a handler stay pending, untouched, until one is registered; `svc outbox
 * status` and each worker's start-up log show them. Partner connectors are registered here too: a
 * partner without one still gets its lines routed and its partner orders made, which wait
 * ("awaiting configuration") until a release registers its connector.
 */
import { plugModels } from './db/sequelize.js';
import { initModels } from './models.js';
import { authorize, scopeOf } from './auth/policy/index.js';
import { plugAccessPolicy } from './shared/access.js';
import { plugVendorStanding } from './auth/vendor-standing.js';
import { isVendorActive } from './vendors/vendor-profile.service.js';
import { registerBearerVerifier } from './http/plugins/auth.js';
import { verifyBearer } from './vendor-api/tokens.service.js';
import { plugOrderParties } from './files/attachments.js';
import { orderParties } from './orders/order-parties.js';
import { plugWebhookPorts } from './webhooks/webhook-ports.js';
import { webhookTargetOf } from './vendors/webhook-target.js';
import { deliveryAttempts, lastHttpStatusOf, logOutboundAttempt } from './vendor-api/api-log.service.js';
import { plugRouteRule } from './catalog/product-mapping.js';
import { decideRoute } from './fulfilment/route.js';
import { plugCustomerAccounts } from './org/customer-accounts.port.js';
import { addressSchema, createCustomerAccount, createCustomerAddress, customerSchema } from './sales/customer-accounts.service.js';
import { readCustomerDocument, updateCustomerDocument } from './sales/customer-demographics.service.js';
import { describeDocTypeInput } from './shared/doctype.js';
import { plugsBackgroundWorkAtLoad } from './shared/composition.js';
import { plugCustomerKeyPairs } from './partners/shipper/shipper.client.js';
import { customerShipperKeyPair, shipperWebhookConnections } from './integrations/shipper-connect.service.js';
import { plugWebhookConnections } from './fulfilment/webhook-connections.js';
import { plugOrderFollowers } from './orders/order-followers.js';
import { storeOrderFollowers } from './integrations/store-push.service.js';
import { plugItemRecallSql } from './catalog/item-recall.js';
import { allLotsRecallSql } from './recalls/recall-reads.js';
// document types at /api/resource (each file registers the types of its domain)
import './org/org.doctypes.js';
import './vendors/vendor.doctypes.js';
import './vendor-api/vendor-api.doctypes.js';
import './orders/orders.doctype.js';
import './catalog/catalog.doctypes.js';

/**
 * Every HTTP route, in the one list (the server imports no domain), plugged by the roles that serve it
 * (serve and start, the tests' app, the test runner's contract check) before they build the server.
 * Loaded here on demand: the route modules, Hapi and the docs plugin cost a process about 0.9 s of CPU,
 * and an admin command, a worker or a seed needs none of them (docs/decisions.md, "The test suite's time").
 */
export async function plugServedRoutes(): Promise<void> {
  // a server runs the start-up task and takes partner webhooks (their connectors): the background work too
  const [{ plugRoutes }, { routes }] = await Promise.all([import('./http/server.js'), import('./routes.js'), plugBackgroundWork()]);
  plugRoutes(routes);
}

// every table's model, bound by initDatabase to each new Sequelize (the database layer imports no domain)
plugModels(initModels);
plugAccessPolicy({ authorize, scopeOf });
// auth ← vendors: a vendor's users act for it only while it is Approved and not suspended
plugVendorStanding(isVendorActive);
registerBearerVerifier((token) => verifyBearer(token));
// ports of a lower domain, filled by a higher one (docs/decisions.md "Domain dependency order")
plugOrderParties(orderParties); // files ← orders: a file's order decides who reads it
// catalog and orders ← fulfilment: the route rule (a line's partner, vendor or marketplace from its product's mapping)
plugRouteRule(decideRoute);
// webhooks ← vendors (the target) and vendor-api (the attempt log)
// connectors ← integrations: a customer's own shipper key pair (svc.integrations.connect_shipper)
plugCustomerKeyPairs(customerShipperKeyPair);
// connectors ← integrations: a customer's own shipper connection's webhook target (?connection=<token>) and its pair
plugWebhookConnections(shipperWebhookConnections);
// orders ← integrations: a Sales Order imported from a customer's store sends its tracking and cancellation back to the store
plugOrderFollowers(storeOrderFollowers);
// catalog and orders ← recalls: an order naming an item under an open all-lots recall is refused at create and at submit
// (417 naming the recall), read with the item rows those statements read anyway
plugItemRecallSql(allLotsRecallSql);
plugWebhookPorts({ targetOf: webhookTargetOf, logAttempt: logOutboundAttempt, lastHttpStatusOf, attemptsOf: deliveryAttempts });
// org ← sales: POST /api/resource/Customer and /Address are the sales team's account service
plugCustomerAccounts({
  createCustomer: createCustomerAccount,
  createAddress: createCustomerAddress,
  readCustomer: readCustomerDocument,
  updateCustomer: updateCustomerDocument,
});
// the create bodies behind that port, for the API documentation
describeDocTypeInput('Customer', customerSchema);
describeDocTypeInput('Address', addressSchema);

let backgroundWork: Promise<void> | undefined;

/**
 * The outbox handlers, partner connectors, start-up task and periodic jobs (src/background-work.ts),
 * registered once. Plugged as the root loads, unless the CLI said first that its command runs none
 * of them (shared/composition.ts); a command that does plugs them before it runs.
 */
export function plugBackgroundWork(): Promise<void> {
  backgroundWork ??= import('./background-work.js').then((work) => {
    registerHandlersAndConnectors(work);
    registerPeriodicWork(work);
  });
  return backgroundWork;
}

type BackgroundWork = typeof import('./background-work.js');

function registerHandlersAndConnectors(work: BackgroundWork): void {
  const { registerOutboxHandler, registerConnector, registerStartupTask, PARTNER_MODULES, syncCommissionPlans } = work;
  registerOutboxHandler(work.mailHandler);
  registerOutboxHandler(work.vendorWebhookHandler);
  registerOutboxHandler(work.fulfilmentRouteHandler);
  registerOutboxHandler(work.partnerOrderHandler);
  registerOutboxHandler(work.partnerEventHandler);
  registerOutboxHandler(work.partnerPollHandler);
  registerOutboxHandler(work.fulfilmentCancelHandler);
  registerOutboxHandler(work.partnerCancelHandler);
  registerOutboxHandler(work.shipperUnsubscribeHandler);
  registerOutboxHandler(work.storePushHandler);

  // the partners of src/partners/index.ts, each with its spec (src/partners/<partner>/)
  for (const partner of PARTNER_MODULES) registerConnector(partner.connector);

  // the stored commission follows config's plans (sales_commission regenerated when they changed)
  registerStartupTask({ name: 'sales commission plans', run: (config) => syncCommissionPlans(config.sales) });
}

function registerPeriodicWork(work: BackgroundWork): void {
  const { registerHousekeeping, registerRetention, registerJob, PARTNER_MODULES } = work;
  // the housekeeping job's purges and the retention job's tables, each the owner's (the runner imports no domain)
  registerHousekeeping('sessions', work.purgeExpiredSessions);
  registerHousekeeping('counters', work.purgeExpiredCounters);
  registerHousekeeping('budgetHits', work.purgeBudgetHits);
  registerHousekeeping('webhookNonces', work.purgeWebhookNonces);
  registerRetention(work.outboxRetention, 'outboxDays');
  registerRetention(work.partnerCallsRetention, 'partnerCallsDays');
  registerRetention(work.partnerEventsRetention, 'partnerEventsDays');
  registerRetention(work.vendorApiLogRetention, 'vendorApiLogDays');
  registerRetention(work.passwordResetsRetention, 'passwordResetsDays');
  registerRetention(work.auditRetention, 'auditDays');

  registerJob(work.housekeepingJob);
  registerJob(work.unattachedFilesJob);
  registerJob(work.retentionJob);
  registerJob(work.idempotencyPurgeJob);
  for (const partner of PARTNER_MODULES) for (const job of partner.jobs ?? []) registerJob(job);
  registerJob(work.storeCatalogSyncJob);
  registerJob(work.storeInventorySyncJob);
  registerJob(work.storeOrdersImportJob);
  registerJob(work.salesCreditFoldJob);
  registerJob(work.recallRemindersJob);
}

if (plugsBackgroundWorkAtLoad()) await plugBackgroundWork();
