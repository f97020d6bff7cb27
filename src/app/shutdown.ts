/**
 * A stop signal's bound (SVC_SHUTDOWN_TIMEOUT): each step of a shutdown runs against one deadline;
 * a step still running at it is abandoned and named (jobs to their leases, pools with their
 * connections), and a process that still has not exited shortly before the timeout is made to.
 * After a database restart a step may never end by itself (a connection that will not answer, a
 * client that will not close), so nothing in a shutdown is awaited without this bound.
 */
import { runtime } from '../shared/runtime.js';
import { within } from '../shared/within.js';

/** The exit code of a shutdown that abandoned something (0 when nothing was). */
export const ABANDONED_EXIT_CODE = 3;

export class ShutdownDeadline {
  /** what was left unfinished, in words (the last log line and the exit code say it) */
  readonly abandoned: string[] = [];

  /** `at`: when the steps must be done (Date.now() units); `timeoutSeconds`: the configured bound, for the words. */
  constructor(
    readonly at: number,
    readonly timeoutSeconds: number,
  ) {}

  remainingMs(): number {
    return Math.max(0, this.at - Date.now());
  }

  /** Runs one step against the deadline; a failure is logged, a step still running at the deadline is named as abandoned. */
  async step(name: string, work: () => Promise<unknown>): Promise<void> {
    const outcome = await within(
      Promise.resolve()
        .then(work)
        .catch((err: unknown) => runtime().logger.warn({ err: (err as Error).message, step: name }, 'shutdown step failed')),
      this.at,
    );
    if (outcome.late) this.abandoned.push(name);
  }

  private forced?: NodeJS.Timeout;

  /** Arms the forced exit at `atMs` from now (replacing an earlier one): it never keeps the process alive itself. */
  forceExitIn(atMs: number): void {
    clearTimeout(this.forced);
    this.forced = setTimeout(() => {
      runtime().logger.error(
        { abandoned: [...this.abandoned, 'handles still open at the deadline'] },
        `stopped at the shutdown deadline (${this.timeoutSeconds} s): exiting with work abandoned`,
      );
      process.exit(ABANDONED_EXIT_CODE); // the bound is the point: nothing may keep a stopping process alive past it
    }, atMs);
    this.forced.unref();
  }

  /** Records something left unfinished by a step that did end (e.g. rows released to their leases). */
  abandon(what: string): void {
    this.abandoned.push(what);
  }
}

/**
 * Starts a shutdown bounded by `timeoutSeconds`: the steps get 75 % of it (the rest is for the pool
 * and the process's own exit); if the process is still alive at 90 % (a handle that will not close),
 * it exits with ABANDONED_EXIT_CODE, saying so. The timer never keeps the process alive itself.
 */
export function startShutdown(timeoutSeconds: number): ShutdownDeadline {
  const ms = timeoutSeconds * 1000;
  const deadline = new ShutdownDeadline(Date.now() + ms * 0.75, timeoutSeconds);
  deadline.forceExitIn(ms * 0.9);
  return deadline;
}
