/**
 * What webhook delivery needs from the domains above it: where a vendor's webhooks go (vendors owns
 * vendor_profiles) and the log of every attempt (vendor-api owns vendor_api_logs, which holds v1
 * calls and webhook attempts alike). Both build on webhooks (vendors enqueue events, vendor-api fires
 * tests), so webhooks imports neither: src/modules.ts plugs their functions in here. Unplugged, a
 * delivery, test fire or listing throws; nothing is sent or reported blind.
 */

/** A vendor's Webhook URL and the (encrypted) secret its webhooks are signed with. */
export interface WebhookTarget {
  name: string;
  webhook_url: string | null;
  webhook_secret_enc: string | null;
}

/** One webhook attempt, as the Vendor API Log keeps it (direction outbound, function = the event). */
export interface OutboundAttempt {
  vendor: string;
  event: string;
  status: string;
  httpStatus: number | null;
  durationMs: number | null;
  deliveryId: string;
  attempt: number;
  excerpt: string | null;
  error: string | null;
}

/** A logged attempt as `svc webhook show` lists it. */
export interface AttemptLogRow {
  attempt: number | null;
  status: string;
  http_status: number | null;
  duration_ms: number | null;
  excerpt: string | null;
  error: string | null;
  created_at: Date;
}

export interface WebhookPorts {
  /** The vendor's target, read now (a rotated secret applies to the next attempt); undefined: no such vendor. */
  targetOf: (vendor: string) => Promise<WebhookTarget | undefined>;
  /** Logs one attempt. */
  logAttempt: (attempt: OutboundAttempt) => Promise<void>;
  /** The HTTP status of each delivery's latest logged attempt (null when it got none). */
  lastHttpStatusOf: (deliveryIds: string[]) => Promise<Map<string, number | null>>;
  /** The logged attempts of one delivery, oldest first; only `vendor`'s when given. */
  attemptsOf: (deliveryId: string, vendor: string | null) => Promise<AttemptLogRow[]>;
}

let plugged: WebhookPorts | undefined;

/** Plugs the vendors and vendor-api functions in (once per process, from src/modules.ts). */
export function plugWebhookPorts(ports: WebhookPorts): void {
  plugged = ports;
}

export function webhookPorts(): WebhookPorts {
  if (!plugged) throw new Error('no webhook ports plugged in: import src/modules.js first');
  return plugged;
}
