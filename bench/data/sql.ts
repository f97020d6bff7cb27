/** Helpers for running the service's own SQL bare through `pg` (the ceilings). */
import { loadavg } from 'node:os';

/** Named `$name` binds (as selectRows takes them) → positional `$1` binds for pg. */
export function positional(sql: string, named: Record<string, unknown>): { text: string; values: unknown[] } {
  const order: string[] = [];
  const text = sql.replace(/\$([a-z_][a-z0-9_]*)/gi, (_, name: string) => {
    if (!(name in named)) throw new Error(`no bind named ${name}`);
    let k = order.indexOf(name);
    if (k < 0) k = order.push(name) - 1;
    return `$${k + 1}`;
  });
  return { text, values: order.map((n) => named[n]) };
}

/** "load 1.23/1.10/0.90" for the notes (the machine is shared, so every figure is noisy). */
export function load(): string {
  return `load ${loadavg()
    .map((l) => l.toFixed(2))
    .join('/')}`;
}

export function pct(a: number, b: number): string {
  return b > 0 ? `${((a / b) * 100).toFixed(0)} %` : 'n/a';
}

/** A deterministic pseudo-random sequence (the same terms and pages every run). */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
