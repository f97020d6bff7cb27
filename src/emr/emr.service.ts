/**
 * The EMR endpoints of the pharmacy partner (issue 13; spec "Endpoints / EMR and prescription"):
 * - ensurePatient: the Customer's own patient at rxpartner (POST /v1/patients/create), its id kept by
 *   org under the Customer (customer_partner_patients, key ''); concurrent callers in a process share
 *   one partner call, and the externalId derived from the Customer makes the partner answer the same
 *   patient to any repeat (another process, or after a crash between the partner's answer and our
 *   write): one patient, one id. No database connection is held while the partner answers.
 * - syncToRxpartner: a submitted order's prescription items, after the prescriber's NPI passed the
 *   check digit and the NPI registry (417 naming the NPI otherwise, nothing sent). The send is the
 *   order's one rxpartner partner order and its outbox row, run now by this request (claimed like a
 *   worker would, same dedupe key = the Sales Order name, same attempt records); a crash leaves the
 *   row to the workers, and a worker already running it is waited for, never doubled.
 * - pollRxpartnerStatus: GET /v1/orders/{reference}; the answer stored as a partner event (keyed like
 *   the webhook's, so a repeat or an already delivered webhook stores nothing) that the worker applies
 *   forward only; the reply never shows a status behind the one the order has.
 * - registerWebhook: tells the partner where to push status events.
 * Patient data goes to the partner only; every read or send of it is audited, none is logged.
 */
export * from './emr-context.js';
export * from './ensure-patient.service.js';
export * from './sync.service.js';
export * from './poll.service.js';
export * from './register-webhook.service.js';
