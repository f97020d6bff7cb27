/**
 * rxpartner (the pharmacy partner; private API, partners.md section 5): the order's patient first
 * (POST /v1/patients/create, once per customer and patient: its id is kept by org through
 * ctx.patients and reused), then the prescription lines (503A items, or Rx attribute is_rx) by
 * POST /v1/prescriptions/transmitEScript with the practice (default_practice_id), the prescriber's
 * NPI (checkout_npi_number) and the patient, and the other lines by POST /v1/otc/transfer,
 * acknowledged at once with a referenceId. The Sales Order name is the partner's dedupe key
 * (`externalOrderId`). Patient data goes to the partner only: never into an outcome, a log line or
 * the call log. Statuses arrive by webhook (rxpartner.webhook.ts).
 */
import type { Connector, ConnectorContext, CreateOutcome, PartnerLine, PartnerOrderInput, PartnerResponse } from '../../fulfilment/connector.js';
import { rxpartnerSpec } from './rxpartner.spec.js';
import { partnerMessage, patientFollowUp, reserveSlot, RxStop, rxCall } from './rxpartner.client.js';
import { parseRxWebhook, verifyRxWebhook } from './rxpartner.webhook.js';

const PATIENTS = '/v1/patients/create';
const ESCRIPT = '/v1/prescriptions/transmitEScript';
const TRANSFER = '/v1/otc/transfer';
/** The OTC part of an order that also has prescriptions is a second partner order: its externalOrderId. */
export const OTC_PART_SUFFIX = '/otc';

const ok = (res: PartnerResponse) => res.status === 200 || res.status === 201;
const fail = (reason: string): RxStop => new RxStop({ kind: 'failed', permanent: true, reason });

/** A refusal of a patient call, without any of the patient's own values (a partner may echo them). */
function patientRefusal(res: PartnerResponse, values: string[]): string {
  let text = partnerMessage(res);
  for (const v of values.filter((x) => x.length > 1)) text = text.split(v).join('[patient]');
  return `rxpartner refused the patient (${res.status}): ${text}`;
}

/** The partner's id of the order's patient: the one kept for this customer and patient when active, else created (idempotent by externalId). */
async function ensurePatient(input: PartnerOrderInput, ctx: ConnectorContext): Promise<string> {
  const p = input.patient!;
  const customer = input.order.customer;
  const known = await ctx.patients?.find(customer, p.key);
  if (known?.status === 'active') return known.id;
  // unknown, pending or failed: asked again (the partner answers the same patient and its status now)
  const res = await rxCall(ctx, {
    method: 'POST',
    path: PATIENTS,
    endpoint: `POST ${PATIENTS}`,
    json: { externalId: `svc-${p.key}`, firstName: p.firstName, lastName: p.lastName, dateOfBirth: p.dateOfBirth, ...(p.gender ? { gender: p.gender } : {}) },
  });
  const body = (res.json ?? {}) as { patientId?: unknown; status?: unknown };
  if (!ok(res)) throw fail(patientRefusal(res, [p.firstName, p.lastName, p.dateOfBirth]));
  if (typeof body.patientId !== 'string' || !body.patientId)
    throw new RxStop({ kind: 'retry', afterSeconds: null, reason: `rxpartner answered ${res.status} to ${PATIENTS} without a patientId` });
  const text = typeof body.status === 'string' ? body.status.toUpperCase() : 'ACTIVE';
  const status = text === 'FAILED' || text === 'FAILURE' ? 'failed' : text === 'ACTIVE' || text === 'SUCCESS' || text === 'CREATED' ? 'active' : 'pending';
  await ctx.patients?.remember(customer, p.key, { id: body.patientId, status });
  if (status === 'failed') throw fail(patientFollowUp(input.salesOrder));
  if (status === 'pending')
    throw new RxStop({ kind: 'retry', afterSeconds: 30, reason: 'rxpartner is still creating the patient (waiting for PATIENT_CREATION_SUCCESS)' });
  return body.patientId;
}

/** Sends one part (e-script or OTC transfer); answers the partner's referenceId. */
async function sendPart(ctx: ConnectorContext, path: string, json: Record<string, unknown>, salesOrder: string): Promise<string> {
  const res = await rxCall(ctx, { method: 'POST', path, endpoint: `POST ${path}`, json });
  const ref = (res.json as { referenceId?: unknown } | undefined)?.referenceId;
  if (ok(res) && typeof ref === 'string' && ref) return ref;
  if (ok(res)) throw new RxStop({ kind: 'retry', afterSeconds: null, reason: `rxpartner answered ${res.status} to ${path} without a referenceId` });
  if (res.status === 422) throw fail(patientFollowUp(salesOrder));
  if (res.status === 403)
    throw new RxStop({ kind: 'awaiting_configuration', reason: `rxpartner refused ${path} (403): check default_practice_id and partner_account` });
  if (res.status === 404 && !/patient/i.test(partnerMessage(res)))
    throw new RxStop({ kind: 'awaiting_configuration', reason: `rxpartner has no ${path} at base_url (404): check base_url` });
  throw fail(`rxpartner refused ${path} (${res.status}): ${partnerMessage(res)}`);
}

const items = (lines: PartnerLine[], key: 'drugDescription' | 'sku') => lines.map((l) => ({ [key]: l.partner_sku, quantity: l.qty }));

async function send(input: PartnerOrderInput, ctx: ConnectorContext): Promise<CreateOutcome> {
  const rx = input.lines.filter((l) => l.prescription);
  const otc = input.lines.filter((l) => !l.prescription);
  const refused = await prescriptionRefusal(input, rx, ctx);
  if (refused) return refused;
  const account = ctx.credentials.partner_account ? { partnerAccount: ctx.credentials.partner_account } : {};
  const patientId = input.patient ? await ensurePatient(input, ctx) : undefined;
  const refs: string[] = [];
  if (rx.length) {
    refs.push(
      await sendPart(
        ctx,
        ESCRIPT,
        {
          externalOrderId: input.dedupeKey,
          practiceId: ctx.credentials.default_practice_id,
          ...account,
          patientId,
          prescriber: { npi: input.prescriberNpi },
          items: items(rx, 'drugDescription'),
        },
        input.salesOrder,
      ),
    );
  }
  if (otc.length) {
    const externalOrderId = rx.length ? `${input.dedupeKey}${OTC_PART_SUFFIX}` : input.dedupeKey;
    refs.push(await sendPart(ctx, TRANSFER, transferOf(input, otc, externalOrderId, account, patientId), input.salesOrder));
  }
  return { kind: 'created', reference: refs[0], status: 'Received', fields: { rxpartner_reference_id: refs.join(' ') } };
}

/**
 * Why the prescription lines cannot be sent, if they cannot: only a 503A order (patient and NPI) is
 * an e-prescription, and the prescriber's NPI is checked (check digit, then the registry) before
 * anything is sent.
 */
async function prescriptionRefusal(input: PartnerOrderInput, rx: PartnerLine[], ctx: ConnectorContext): Promise<CreateOutcome | undefined> {
  if (rx.length && (!input.patient || !input.prescriberNpi)) {
    return {
      kind: 'failed',
      permanent: true,
      reason: `line ${rx[0].idx} (${rx[0].item_code}) is a prescription: only a 503A order (patient and checkout_npi_number) can be sent to rxpartner as an e-prescription`,
    };
  }
  if (rx.length && input.prescriberNpi && ctx.npi) {
    const check = await ctx.npi(input.prescriberNpi);
    if (!check.ok) return check.retry ? { kind: 'retry', afterSeconds: 60, reason: check.message } : { kind: 'failed', permanent: true, reason: check.message };
  }
  return undefined;
}

/** The transfer order of the over-the-counter lines, shipped to the order's address. */
function transferOf(
  input: PartnerOrderInput,
  otc: PartnerLine[],
  externalOrderId: string,
  account: { partnerAccount?: string },
  patientId: string | undefined,
) {
  const s = input.shipTo;
  return {
    externalOrderId,
    ...account,
    ...(patientId ? { patientId } : {}),
    shippingAddress: {
      name: s.name,
      address1: s.street1,
      ...(s.street2 ? { address2: s.street2 } : {}),
      city: s.city,
      state: s.state ?? '',
      zip: s.postalCode ?? '',
      country: s.countryCode,
      ...(s.phone ? { phone: s.phone } : {}),
    },
    items: items(otc, 'sku'),
  };
}

async function createOrder(input: PartnerOrderInput, ctx: ConnectorContext): Promise<CreateOutcome> {
  try {
    return await send(input, ctx);
  } catch (err) {
    if (err instanceof RxStop) return err.outcome;
    throw err;
  }
}

/** A token, then one read of an order that does not exist: 404 proves the token was accepted. */
async function testCredentials(ctx: ConnectorContext): Promise<{ ok: boolean; detail: string; httpStatus?: number }> {
  try {
    const res = await rxCall(ctx, { method: 'GET', path: '/v1/orders/svc-credentials-check', endpoint: 'GET /v1/orders/{reference}' });
    if (res.status === 404 || ok(res))
      return {
        ok: true,
        httpStatus: res.status,
        detail: `authenticated: a token was issued and the partner answered ${res.status} to a read of a probe order`,
      };
    return { ok: false, httpStatus: res.status, detail: `unexpected answer ${res.status}: ${partnerMessage(res)}` };
  } catch (err) {
    if (err instanceof RxStop) return { ok: false, detail: err.message };
    throw err;
  }
}

export const rxpartnerConnector: Connector = {
  ...rxpartnerSpec,
  statuses: {
    created: 'Received',
    // Cancelled ends an order before it ships, never after; a reshipment is Shipped again with new tracking
    rank: { Received: 1, Cancelled: 1.5, Shipped: 2, Delivered: 3 },
    terminal: ['Delivered', 'Cancelled'],
    stage: { Received: 'Pending', Shipped: 'Dispatched', Delivered: 'Delivered', Cancelled: 'Cancelled' },
  },
  createOrder,
  reserveCreate: reserveSlot,
  testCredentials,
  verifyWebhook: verifyRxWebhook,
  parseWebhook: parseRxWebhook,
};
