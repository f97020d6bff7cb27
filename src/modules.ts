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
import { registerOutboxHandler } from './shared/outbox.js';
import { registerJob } from './jobs/index.js';
import { registerStartupTask } from './shared/startup.js';
import { syncCommissionPlans } from './sales/commission-sync.js';
import { salesCreditFoldJob } from './sales/sales-credit-fold.job.js';
import { registerBearerVerifier } from './http/plugins/auth.js';
import { verifyBearer } from './vendor-api/tokens.service.js';
import { housekeepingJob, registerHousekeeping } from './jobs/housekeeping.job.js';
import { purgeExpiredSessions } from './auth/credentials.service.js';
import { purgeExpiredCounters } from './shared/rate-limit.js';
import { purgeBudgetHits } from './shared/rate-budget.js';
import { purgeWebhookNonces } from './fulfilment/webhook-nonces.service.js';
import { registerRetention } from './jobs/retention.js';
import { auditRetention } from './audit/retention.js';
import { partnerCallsRetention, partnerEventsRetention } from './fulfilment/retention.js';
import { passwordResetsRetention } from './integrations/retention.js';
import { outboxRetention } from './shared/outbox-retention.js';
import { vendorApiLogRetention } from './vendor-api/retention.js';
import { unattachedFilesJob } from './files/unattached-files.job.js';
import { retentionJob } from './jobs/retention.job.js';
import { mailHandler } from './mail/mail.service.js';
import { vendorWebhookHandler } from './webhooks/webhook.handler.js';
import { idempotencyPurgeJob } from './vendor-api/idempotency-purge.job.js';
import { plugOrderParties } from './files/attachments.js';
import { orderParties } from './orders/order-parties.js';
import { plugWebhookPorts } from './webhooks/webhook-ports.js';
import { webhookTargetOf } from './vendors/webhook-target.js';
import { deliveryAttempts, lastHttpStatusOf, logOutboundAttempt } from './vendor-api/api-log.service.js';
import { registerConnector } from './fulfilment/connector.js';
import { fulfilmentRouteHandler } from './fulfilment/router.service.js';
import { partnerOrderHandler } from './fulfilment/partner-order.handler.js';
import { partnerEventHandler } from './fulfilment/partner-event.handler.js';
import { PARTNER_MODULES } from './partners/index.js';
import { plugRouteRule } from './catalog/product-mapping.js';
import { decideRoute } from './fulfilment/route.js';
import { partnerPollHandler } from './fulfilment/partner-poll.service.js';
import { fulfilmentCancelHandler, partnerCancelHandler } from './fulfilment/partner-cancel.service.js';
import { plugCustomerAccounts } from './org/customer-accounts.port.js';
import { addressSchema, createCustomerAccount, createCustomerAddress, customerSchema } from './sales/customer-accounts.service.js';
import { readCustomerDocument, updateCustomerDocument } from './sales/customer-demographics.service.js';
import { describeDocTypeInput } from './shared/doctype.js';
import { plugCustomerKeyPairs } from './partners/shipper/shipper.client.js';
import { customerShipperKeyPair, shipperUnsubscribeHandler, shipperWebhookConnections } from './integrations/shipper-connect.service.js';
import { plugWebhookConnections } from './fulfilment/webhook-connections.js';
import { plugOrderFollowers } from './orders/order-followers.js';
import { storeOrderFollowers, storePushHandler } from './integrations/store-push.service.js';
import { plugItemRecallSql } from './catalog/item-recall.js';
import { allLotsRecallSql } from './recalls/recall-reads.js';
import { recallRemindersJob } from './recalls/recall-reminders.job.js';
import { storeCatalogSyncJob, storeInventorySyncJob, storeOrdersImportJob } from './integrations/store-sync.job.js';
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
  const [{ plugRoutes }, { routes }] = await Promise.all([import('./http/server.js'), import('./routes.js')]);
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

registerOutboxHandler(mailHandler);
registerOutboxHandler(vendorWebhookHandler);
registerOutboxHandler(fulfilmentRouteHandler);
registerOutboxHandler(partnerOrderHandler);
registerOutboxHandler(partnerEventHandler);
registerOutboxHandler(partnerPollHandler);
registerOutboxHandler(fulfilmentCancelHandler);
registerOutboxHandler(partnerCancelHandler);
registerOutboxHandler(shipperUnsubscribeHandler);
registerOutboxHandler(storePushHandler);

// the partners of src/partners/index.ts, each with its spec (src/partners/<partner>/)
for (const partner of PARTNER_MODULES) registerConnector(partner.connector);

// the stored commission follows config's plans (sales_commission regenerated when they changed)
registerStartupTask({ name: 'sales commission plans', run: (config) => syncCommissionPlans(config.sales) });

// the housekeeping job's purges and the retention job's tables, each the owner's (the runner imports no domain)
registerHousekeeping('sessions', purgeExpiredSessions);
registerHousekeeping('counters', purgeExpiredCounters);
registerHousekeeping('budgetHits', purgeBudgetHits);
registerHousekeeping('webhookNonces', purgeWebhookNonces);
registerRetention(outboxRetention, 'outboxDays');
registerRetention(partnerCallsRetention, 'partnerCallsDays');
registerRetention(partnerEventsRetention, 'partnerEventsDays');
registerRetention(vendorApiLogRetention, 'vendorApiLogDays');
registerRetention(passwordResetsRetention, 'passwordResetsDays');
registerRetention(auditRetention, 'auditDays');

registerJob(housekeepingJob);
registerJob(unattachedFilesJob);
registerJob(retentionJob);
registerJob(idempotencyPurgeJob);
for (const partner of PARTNER_MODULES) for (const job of partner.jobs ?? []) registerJob(job);
registerJob(storeCatalogSyncJob);
registerJob(storeInventorySyncJob);
registerJob(storeOrdersImportJob);
registerJob(salesCreditFoldJob);
registerJob(recallRemindersJob);
