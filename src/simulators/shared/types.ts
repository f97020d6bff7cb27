/**
 * The contract every partner simulator keeps (docs/decisions.md, "Partner simulators (issue 12)"):
 * the options it starts with and the handle it returns. Tests, `npm start` and `svc simulate` all
 * use these same servers.
 */

export type PartnerKey = 'rxpartner' | 'shipper' | 'otcpartner' | 'peptidepartner' | 'storepartner';

export interface SimTracking {
  number: string;
  carrier: string;
  url?: string;
}

/** An order as the partner holds it (a copy; changing it changes nothing). */
export interface SimOrder {
  /** the partner's own id (ShipStation orderId, peptide orderId, otc transactionId, rx referenceId, Shopify gid) */
  ref: string;
  /** what the partner deduplicates on (orderKey / partnerOrderId / reference / Sales Order name) */
  dedupeKey: string;
  /** the partner's own status text (awaiting_shipment, PENDING, ORDER_RECEIVED, synced, OPEN…) */
  status: string;
  /** the create request body as received (parsed JSON or GraphQL variables) */
  body: unknown;
  createdAt: string;
  tracking?: SimTracking;
}

/** An injected answer for error-path tests (failNext). */
export interface FailSpec {
  status: number;
  /** default: the partner's own error body for that status */
  body?: unknown;
  headers?: Record<string, string>;
  /** only calls whose path starts with this (default: every partner API call) */
  path?: string;
  /** answer only after this many milliseconds (a slow partner; close() cuts it short) */
  delayMs?: number;
  /** drop the connection without an answer (a reset) */
  reset?: boolean;
}

export interface SimRequestLog {
  method: string;
  /** path with its query string */
  path: string;
  /** the status answered (0 when the connection was reset) */
  status: number;
  at: string;
}

/** A webhook the simulator sent (or tried to). */
export interface SimDelivery {
  event: string;
  ref: string;
  url: string;
  attempt: number;
  /** the receiver's HTTP status, or 0 when it could not be reached */
  status: number;
  error?: string;
  at: string;
  body: string;
  headers: Record<string, string>;
}

export interface SimulatorOptions<Credentials, Limits = Record<string, number>> {
  /** bind address (default 127.0.0.1) */
  host?: string;
  /** port (default 0: a free port) */
  port?: number;
  credentials: Credentials;
  /** where partner events are POSTed, signed the partner's way */
  webhookUrl?: string;
  /** move each order one status forward this often (default: off, only on command) */
  advanceEveryMs?: number;
  /** rate limit overrides (partner-specific names) */
  limits?: Partial<Limits>;
}

export interface RunningSimulator {
  partner: PartnerKey;
  /** base URL, e.g. http://127.0.0.1:PORT */
  url: string;
  close(): Promise<void>;
  orders(): SimOrder[];
  /** one step forward, or to the named status; sends the partner webhook when webhookUrl is set */
  advance(ref: string, to?: string): Promise<SimOrder>;
  /** the next `count` partner API calls get this answer */
  failNext(count: number, spec: FailSpec): void;
  /** a hung partner (true): its API calls get no answer until hang(false), then are answered as usual (POST /_sim/hang) */
  hang(on: boolean, path?: string): void;
  /** calls held unanswered by a hang right now */
  held(): number;
  requests(): SimRequestLog[];
  /** webhook deliveries, in order (an addition to the shared contract) */
  deliveries(): SimDelivery[];
  /** resolves once the simulator has closed (by close() or POST /_sim/shutdown) */
  stopped(): Promise<void>;
}

/** A control call that cannot be done (unknown order, a move the partner does not allow). */
export class SimError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}
