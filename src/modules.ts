/**
 * Side-effect registrations shared by every process role (serve, worker, CLI): document types,
 * outbox handlers and periodic jobs. Each domain adds one import line here.
 */
import './org/org.doctypes.js';
import './mail/mail.service.js';
import './jobs/housekeeping.job.js';
import './webhooks/webhook.handler.js';
import './vendors/vendor.doctypes.js';
import './vendor-api/vendor-api.doctypes.js';
import './orders/orders.doctype.js';
import './catalog/catalog.doctypes.js';
