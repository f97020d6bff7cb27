/**
 * The background work of the composition root, as values: outbox handlers, partner connectors, the
 * start-up task, the housekeeping purges, the retention targets and the periodic jobs, with the
 * registries they go to. src/modules.ts registers them (plugBackgroundWork) in every process but an
 * admin command that runs none of them, which so loads none of these modules (docs/decisions.md,
 * "The test suite's time"). Nothing here registers anything.
 */
export { registerOutboxHandler } from './shared/outbox.js';
export { registerJob } from './jobs/index.js';
export { registerStartupTask } from './shared/startup.js';
export { syncCommissionPlans } from './sales/commission-sync.js';
export { salesCreditFoldJob } from './sales/sales-credit-fold.job.js';
export { housekeepingJob, registerHousekeeping } from './jobs/housekeeping.job.js';
export { purgeExpiredSessions } from './auth/credentials.service.js';
export { purgeExpiredCounters } from './shared/rate-limit.js';
export { purgeBudgetHits } from './shared/rate-budget.js';
export { purgeWebhookNonces } from './fulfilment/webhook-nonces.service.js';
export { registerRetention } from './jobs/retention.js';
export { auditRetention } from './audit/retention.js';
export { partnerCallsRetention, partnerEventsRetention } from './fulfilment/retention.js';
export { passwordResetsRetention } from './integrations/retention.js';
export { outboxRetention } from './shared/outbox-retention.js';
export { vendorApiLogRetention } from './vendor-api/retention.js';
export { unattachedFilesJob } from './files/unattached-files.job.js';
export { retentionJob } from './jobs/retention.job.js';
export { mailHandler } from './mail/mail.service.js';
export { vendorWebhookHandler } from './webhooks/webhook.handler.js';
export { idempotencyPurgeJob } from './vendor-api/idempotency-purge.job.js';
export { registerConnector } from './fulfilment/connector.js';
export { fulfilmentRouteHandler } from './fulfilment/router.service.js';
export { partnerOrderHandler } from './fulfilment/partner-order.handler.js';
export { partnerEventHandler } from './fulfilment/partner-event.handler.js';
export { PARTNER_MODULES } from './partners/index.js';
export { partnerPollHandler } from './fulfilment/partner-poll.service.js';
export { fulfilmentCancelHandler, partnerCancelHandler } from './fulfilment/partner-cancel.service.js';
export { storeCatalogSyncJob, storeInventorySyncJob, storeOrdersImportJob } from './integrations/store-sync.job.js';
export { shipperUnsubscribeHandler } from './integrations/shipper-connect.service.js';
export { storePushHandler } from './integrations/store-push.service.js';
export { recallRemindersJob } from './recalls/recall-reminders.job.js';
