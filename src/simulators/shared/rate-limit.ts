/**
 * Request budgets the way partners count them: a fixed window that starts with its first request
 * (ShipStation's minute, the peptide channel's windows) and a rolling window (rxpartner's 5 minutes).
 * Each key (a credential) has its own budget. Rejected requests do not use up the budget.
 */

export interface Verdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** milliseconds until a request would be allowed again (fixed: until the window resets) */
  resetMs: number;
}

export class FixedWindow {
  private readonly windows = new Map<string, { start: number; used: number }>();

  constructor(
    /** changeable at run time (`POST /_sim/limits`: a benchmark drains its backlog with a raised budget) */
    public limit: number,
    readonly windowMs: number,
  ) {}

  take(key: string, now = Date.now()): Verdict {
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs) this.windows.set(key, (w = { start: now, used: 0 }));
    const resetMs = w.start + this.windowMs - now;
    if (w.used >= this.limit) return { allowed: false, limit: this.limit, remaining: 0, resetMs };
    w.used++;
    return { allowed: true, limit: this.limit, remaining: this.limit - w.used, resetMs };
  }
}

export class RollingWindow {
  private readonly hits = new Map<string, number[]>();

  constructor(
    /** changeable at run time (`POST /_sim/limits`: a benchmark drains its backlog with a raised budget) */
    public limit: number,
    readonly windowMs: number,
  ) {}

  take(key: string, now = Date.now()): Verdict {
    const list = (this.hits.get(key) ?? []).filter((t) => now - t < this.windowMs);
    this.hits.set(key, list);
    if (list.length >= this.limit) return { allowed: false, limit: this.limit, remaining: 0, resetMs: list[0] + this.windowMs - now };
    list.push(now);
    return { allowed: true, limit: this.limit, remaining: this.limit - list.length, resetMs: list[0] + this.windowMs - now };
  }
}

/** Whole seconds, never 0 while something is pending (a client that waits 0 s would spin). */
export const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
