/** A partner webhook as a connector verifies and reads it, and the neutral events it gives (src/fulfilment/connector.ts). */
import type { PatientStatus } from './connector-context.js';
import type { Credentials } from './connector-io.js';
import type { PartnerKey } from './partners.js';
import type { WebhookConnection } from './webhook-connections.js';

/** A webhook as received: the raw body bytes, before anything parsed them. */
export interface WebhookRequest {
  rawBody: Buffer;
  /** header names in lower case */
  headers: Readonly<Record<string, string | undefined>>;
  credentials: Credentials;
  receivedAt: Date;
  /** the `token` query parameter of the target the delivery came to (the marketplace shipper account's, issue 24) */
  targetToken?: string;
  /** it came to a customer's own connection's target, whose token the intake has already matched (issue 13) */
  viaConnection?: boolean;
}

export type WebhookVerdict =
  /** `replayKey`: the delivery's nonce, kept `keepSeconds`; a delivery reusing it stores nothing */
  { ok: true; replayKey?: { key: string; keepSeconds: number } } | { ok: false; status: 400 | 401 | 403; message: string };

/** A partner's status report, neutral: what the event application needs, whatever the partner. */
export interface PartnerEvent {
  partner: PartnerKey;
  /** dedupe key of the event: the partner's event or delivery id, else reference + status (+ tracking) */
  eventId: string;
  /** the partner's reference of the order, or our dedupe key (the Sales Order name) it echoes */
  reference: string;
  /** the spec's status for the partner (e.g. Shipped), or null when the event changes no status */
  status: string | null;
  /** the status as the partner wrote it */
  statusText: string | null;
  tracking: { number: string | null; url: string | null; carrier: string | null } | null;
  /** the partner's event type (order.shipped, SHIP_NOTIFY, orders/fulfilled…) */
  rawType: string;
  occurredAt: string | null;
  /** a URL the worker must read (with the partner's credentials) to complete the event (shipper) */
  resolveUrl?: string;
  /**
   * The event is about a patient, not an order (rxpartner PATIENT_CREATION_*): `reference` is the
   * partner's patient id; the event applies to the partner order whose sending created the patient.
   */
  patient?: { status: PatientStatus; detail: string | null };
  /** what operations must do by hand (shown on the partner order, logged; `{sales_order}` becomes the order's name); never patient data */
  followUp?: string;
  /**
   * The event came through a customer's own connection's webhook target (issue 13): its resolveUrl is
   * read with that connection's credentials, and it applies only to that customer's orders.
   */
  connection?: WebhookConnection;
}

/** Thrown by resolveEvent or poll when the partner's rate budget is spent: asked again after `waitSeconds`, no attempt spent. */
export class PartnerBudgetWait extends Error {
  constructor(
    readonly waitSeconds: number,
    message = 'the partner rate budget is spent',
  ) {
    super(message);
  }
}

/**
 * Thrown by parseWebhook for a verified body it cannot use (not JSON, no order named): the intake
 * acknowledges it (200, so the partner neither retries nor drops its subscription) and counts it for
 * operators per partner and `topic` (the delivery's topic or event type, when it names one).
 */
export class WebhookBodyError extends Error {
  constructor(
    message: string,
    readonly topic: string | null = null,
  ) {
    super(message);
  }
}
