/**
 * Waiting in tests without fixed sleeps. `eventually` polls a check until it passes and fails with
 * the check's last failure once the deadline has passed; `consistently` holds a check true for a
 * quiet period (the only way to show that something does NOT happen when no event marks the end).
 * Deadlines are generous on purpose: CI is a loaded 2-core machine, and a passing check returns at
 * once, so a long deadline costs nothing when all is well.
 */

export interface WaitOptions {
  /** give up after this long (default 15 s) */
  timeoutMs?: number;
  /** pause between checks (default 50 ms) */
  intervalMs?: number;
  /** what is awaited, for the error message */
  message?: string;
}

/** What a check gives back when it has not passed yet. */
type NotYet = undefined | null | false;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Polls `check` until it returns a value other than undefined, null or false without throwing, and
 * returns that value. After `timeoutMs` it throws, naming `message` and the last thing the check
 * threw or returned.
 */
export async function eventually<T>(check: () => T | Promise<T>, opts: WaitOptions = {}): Promise<Exclude<T, NotYet>> {
  const { timeoutMs = 15_000, intervalMs = 50, message = 'the condition' } = opts;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let last: unknown;
    try {
      const value = await check();
      if (value !== undefined && value !== null && value !== false) return value as Exclude<T, NotYet>;
      last = value;
    } catch (err) {
      last = err;
    }
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${message}; last check: ${describe(last)}`);
    await pause(intervalMs);
  }
}

/**
 * Checks `check` every `intervalMs` for `forMs` and throws at the first time it fails (returns
 * false or throws). For "nothing more happens" assertions only: it always takes `forMs`.
 */
export async function consistently(check: () => boolean | Promise<boolean>, opts: { forMs: number; intervalMs?: number; message?: string }): Promise<void> {
  const { forMs, intervalMs = 50, message = 'the condition' } = opts;
  const end = Date.now() + forMs;
  for (;;) {
    let ok: boolean;
    let why = 'it returned false';
    try {
      ok = await check();
    } catch (err) {
      ok = false;
      why = describe(err);
    }
    if (!ok) throw new Error(`${message} stopped holding: ${why}`);
    if (Date.now() >= end) return;
    await pause(Math.min(intervalMs, Math.max(0, end - Date.now())));
  }
}
