/** The EMR flow's rxpartner context: its endpoints, the partner time of a request, a ready context and its errors. */
import { BusinessRuleError, RateLimitError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';
import type { ConnectorContext, PartnerHttp } from '../fulfilment/connector.js';
import { connectorContext } from '../fulfilment/context.js';
import { partnerReadiness } from '../fulfilment/readiness.js';
import { RxStop, rxCall } from '../partners/rxpartner/rxpartner.client.js';

export const PARTNER = 'rxpartner';
export const PATIENTS = '/v1/patients/create';
export const WEBHOOKS = '/v1/webhooks';
/** The events the service asks the partner to push (spec "Inbound partner events"). */
export const RX_WEBHOOK_EVENTS = [
  'ORDER_RECEIVED',
  'ORDER_SHIPPED',
  'ORDER_RESHIPPED',
  'ORDER_DELIVERED',
  'ORDER_CANCELED',
  'PATIENT_CREATION_SUCCESS',
  'PATIENT_CREATION_FAILURE',
];

/** Milliseconds spent waiting for the partner during one request (the bench subtracts them: Server-Timing). */
export interface PartnerTime {
  ms: number;
}

/** An HTTP client that adds each partner call's duration to `time`. */
function timed(http: PartnerHttp, time: PartnerTime): PartnerHttp {
  return {
    async request(req) {
      const started = Date.now();
      try {
        const res = await http.request(req);
        time.ms += res.durationMs;
        return res;
      } catch (err) {
        time.ms += Date.now() - started;
        throw err;
      }
    },
  };
}

/** A ready rxpartner context (417 naming what is missing otherwise). */
export async function rxContext(scope: { salesOrder?: string; partnerOrderId?: number }, time: PartnerTime): Promise<ConnectorContext> {
  const ready = await partnerReadiness(PARTNER);
  if (!ready.ready) throw new BusinessRuleError(`rxpartner is not configured: ${ready.problem}`, 'PartnerNotConfiguredError');
  const ctx = connectorContext(PARTNER, ready.credentials, { ...scope, signal: AbortSignal.timeout(runtime().config.partners.timeoutMs * 3) });
  return { ...ctx, http: timed(ctx.http, time) };
}

/** An RxStop as the caller's error: configuration and refusals 417, a spent budget 429. */
export function stopError(err: RxStop): Error {
  const o = err.outcome;
  if (o.kind === 'retry' && o.budget) return new RateLimitError(`${o.reason}; try again in ${o.afterSeconds ?? 1} s`, o.afterSeconds ?? 1);
  if (o.kind === 'retry') return new BusinessRuleError(`rxpartner could not take the request now (${o.reason}); nothing was stored, try again`);
  if (o.kind === 'awaiting_configuration') return new BusinessRuleError(`rxpartner is not configured: ${o.reason}`, 'PartnerNotConfiguredError');
  return new BusinessRuleError(o.reason);
}

/** An rxpartner call of the EMR flow, a stop (RxStop) thrown as the caller's error (stopError). */
export async function rxRequest(ctx: ConnectorContext, req: Parameters<typeof rxCall>[1]): ReturnType<typeof rxCall> {
  try {
    return await rxCall(ctx, req);
  } catch (err) {
    if (err instanceof RxStop) throw stopError(err);
    throw err;
  }
}

// ---- ensure_patient ---------------------------------------------------------------------------

/** A non-blank text of the partner's answer, trimmed and capped. */
export const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, 500) : null);
