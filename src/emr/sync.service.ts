/** sync_to_rxpartner: a submitted order's prescriptions sent now through its rxpartner partner order (see emr.service.ts). */
import { randomUUID } from 'node:crypto';
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { canSyncPrescriptions } from '../auth/policy/emr.rules.js';
import { recordAudit } from '../audit/audit.service.js';
import { prescriptionItemsOf } from '../catalog/product-mapping.js';
import { withTransaction } from '../db/sequelize.js';
import { loadVisibleOrder } from '../orders/order-doc.js';
import { verifyNpi } from '../orders/npi-registry.service.js';
import { routingLinesOf } from '../orders/partner-fulfilment.service.js';
import { BusinessRuleError, ConflictError, NotFoundError } from '../shared/errors.js';
import { claimRow, redeliver, runClaimedRow } from '../shared/outbox.js';
import { runtime } from '../shared/runtime.js';
import { partnerCallMsSince } from '../fulfilment/call-log.service.js';
import type { PartnerOrderData } from '../fulfilment/partner-order.model.js';
import { loadPartnerOrder, partnerOrderOf, updatePartnerOrder } from '../fulfilment/partner-orders.service.js';
import { routeOrder } from '../fulfilment/router.service.js';
import { PARTNER, type PartnerTime } from './emr-context.js';
import { sleep } from './ensure-patient.service.js';

export interface SyncResult {
  sales_order: string;
  /** sent: the partner has the prescription; queued: the partner could not take it now, the worker sends it (same dedupe key) */
  status: 'sent' | 'queued';
  rxpartner_reference_id: string | null;
  rxpartner_status: string | null;
  provider_npi: string;
  detail: string | null;
}

/** The order's rxpartner partner order, or null. */
export async function rxPartnerOrderOf(salesOrder: string): Promise<PartnerOrderData | null> {
  return partnerOrderOf(salesOrder, PARTNER);
}

/**
 * Sends a submitted order's prescription items to rxpartner now, after the NPI check; 409 when the
 * partner already has them (spec: "Order already synced to a vendor").
 */
export async function syncToRxpartner(actor: Actor, salesOrder: string, time: PartnerTime = { ms: 0 }): Promise<SyncResult> {
  authorize(actor, 'sync', 'Rxpartner EMR');
  const npi = await syncableNpi(actor, salesOrder);
  let po = await rxPartnerOrderOf(salesOrder);
  if (!po) {
    await routeOrder(salesOrder); // the router's row may not have run yet: the same routing, idempotent
    po = await rxPartnerOrderOf(salesOrder);
  }
  if (!po) throw new BusinessRuleError(`Sales Order ${salesOrder} has no rxpartner lines to send`);
  const outboxId = await redriveForSync(actor, salesOrder, po.id, npi);
  if (outboxId === null) throw new BusinessRuleError(`The rxpartner partner order of ${salesOrder} has no outbox row; run svc partner retry ${salesOrder}`);

  const started = new Date();
  await sendNow(outboxId, po.id);
  time.ms += await partnerCallMsSince(po.id, started);
  const done = (await loadPartnerOrder(po.id))!;
  if (done.status === 'failed' || done.status === 'awaiting_configuration')
    throw new BusinessRuleError(`rxpartner did not take Sales Order ${salesOrder}: ${done.lastError ?? done.status}`);
  return {
    sales_order: salesOrder,
    status: done.status === 'created' ? 'sent' : 'queued',
    rxpartner_reference_id: done.partnerReference,
    rxpartner_status: done.partnerStatus,
    provider_npi: npi,
    detail: done.status === 'created' ? null : (done.lastError ?? 'queued for the worker'),
  };
}

/**
 * What must hold before anything is sent: the order visible to the actor and submitted, with
 * prescription items for rxpartner and a provider NPI that passes the check. Answers the NPI.
 */
async function syncableNpi(actor: Actor, salesOrder: string): Promise<string> {
  const head = await loadVisibleOrder(actor, salesOrder);
  if (!canSyncPrescriptions(actor, head)) throw new NotFoundError(`Sales Order ${salesOrder} not found`);
  if (head.docstatus !== 1)
    throw new BusinessRuleError(
      `Sales Order ${salesOrder} is ${head.docstatus === 2 ? 'cancelled' : 'not submitted'}: only a submitted order can be sent to rxpartner`,
    );
  const lines = await routingLinesOf(salesOrder);
  const rxItems = await prescriptionItemsOf(lines.map((l) => l.item_code));
  const rxLines = lines.filter((l) => rxItems.has(l.item_code) && (l.fulfilment_partner === null || l.fulfilment_partner === PARTNER));
  if (rxLines.length === 0) throw new BusinessRuleError(`Sales Order ${salesOrder} has no prescription items for rxpartner`);
  const npi = typeof head.checkout_npi_number === 'string' ? head.checkout_npi_number : '';
  if (!npi) throw new BusinessRuleError(`Sales Order ${salesOrder} has no provider NPI (checkout_npi_number)`, 'MandatoryError');
  // the prescriber first: nothing leaves the service for an NPI that fails the check digit or the registry
  const verdict = await verifyNpi(npi);
  if (!verdict.ok) throw new BusinessRuleError(verdict.message, 'ValidationError');
  return npi;
}

/**
 * With the partner order locked: 409 when the partner has it already; a failed one gets fresh
 * attempts on its outbox row; the sync is audited. Answers the partner order's outbox row.
 */
async function redriveForSync(actor: Actor, salesOrder: string, partnerOrderId: number, npi: string): Promise<number | null> {
  return withTransaction(undefined, async (transaction) => {
    const p = (await loadPartnerOrder(partnerOrderId, { transaction, lock: true }))!;
    if (p.status === 'created')
      throw new ConflictError(`Sales Order ${salesOrder} is already synced to rxpartner (reference ${p.partnerReference ?? 'unknown'})`);
    if ((p.status === 'failed' || p.status === 'awaiting_configuration') && p.outboxId !== null) {
      // an explicit call is a re-drive with fresh attempts, same outbox row and dedupe key (as `svc partner retry`)
      if (await redeliver(p.outboxId, { transaction, attempts: runtime().config.partners.maxAttempts }))
        await updatePartnerOrder(p, { status: 'pending' }, { transaction });
    }
    await recordAudit(transaction, actor, {
      action: 'sync',
      object_type: 'Sales Order',
      object_name: salesOrder,
      detail: { partner: PARTNER, provider_npi: npi, partner_order_id: p.id },
    });
    return p.outboxId;
  });
}

/** Runs the partner order's outbox row in this request, or waits for the worker that holds it now. */
async function sendNow(outboxId: number, partnerOrderId: number): Promise<void> {
  const { timeoutMs, budgetWaitMs } = runtime().config.partners;
  const leaseSeconds = Math.ceil((3 * timeoutMs + budgetWaitMs) / 1000) + 5;
  const workerId = `api:sync_to_rxpartner:${randomUUID()}`;
  const row = await claimRow(outboxId, workerId, leaseSeconds);
  if (row) await runClaimedRow(row, workerId, AbortSignal.timeout(leaseSeconds * 1000));
  else await waitForAttempt(partnerOrderId, leaseSeconds * 1000); // a worker is sending it now: its outcome is ours
}

/** Waits while another process's attempt at the partner order runs (until its status settles or the lease would lapse). */
async function waitForAttempt(partnerOrderId: number, maxMs: number): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (Date.now() < deadline) {
    const p = await loadPartnerOrder(partnerOrderId);
    if (!p || p.status === 'created' || p.status === 'failed' || p.status === 'awaiting_configuration') return;
    await sleep(100);
  }
}

// ---- poll_rxpartner_status --------------------------------------------------------------------
