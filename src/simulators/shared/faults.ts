/**
 * What a simulator does instead of the partner logic when a test asks for a fault: injected answers
 * (failNext, optionally after a delay or as a reset connection) and a hang (calls held, unanswered,
 * until it ends). The server (shared/http.ts) asks here before each partner API call.
 */
import type { FailSpec } from './types.js';

export class Faults {
  private readonly failures: { left: number; spec: FailSpec }[] = [];
  private readonly delays = new Set<NodeJS.Timeout>();
  // a hung partner: calls wait here, unanswered, until the hang ends (then run as usual, even when
  // the caller gave up meanwhile: the partner caught up) or the server closes
  private hanging: { path?: string } | undefined;
  private readonly heldCalls = new Set<() => void>();

  failNext(count: number, spec: FailSpec): void {
    if (count > 0) this.failures.push({ left: count, spec });
  }

  /** the next injected answer for a call to `path`, counted down (undefined: answer as the partner) */
  take(path: string): FailSpec | undefined {
    const i = this.failures.findIndex((f) => !f.spec.path || path.startsWith(f.spec.path));
    if (i === -1) return undefined;
    const f = this.failures[i];
    if (--f.left <= 0) this.failures.splice(i, 1);
    return f.spec;
  }

  /** a delay that close() cuts short */
  wait(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = setTimeout(() => (this.delays.delete(t), resolve()), ms);
      this.delays.add(t);
    });
  }

  hang(on: boolean, path?: string): void {
    this.hanging = on ? { path } : undefined;
    if (!on) this.releaseHeld();
  }

  /** a promise that settles when the hang ends, or undefined when calls to `path` are not hung */
  holdWhileHung(path: string): Promise<void> | undefined {
    if (!this.hanging || (this.hanging.path && !path.startsWith(this.hanging.path))) return undefined;
    return new Promise<void>((resolve) => {
      const release = () => (this.heldCalls.delete(release), resolve());
      this.heldCalls.add(release);
    });
  }

  held(): number {
    return this.heldCalls.size;
  }

  /** ends every delay and hang (the server is closing) */
  close(): void {
    for (const t of this.delays) clearTimeout(t);
    this.delays.clear();
    this.hanging = undefined;
    this.releaseHeld();
  }

  private releaseHeld(): void {
    for (const release of [...this.heldCalls]) release();
  }
}
