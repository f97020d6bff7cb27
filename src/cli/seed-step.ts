/**
 * The one door from src/ to seeds/: the demo data step of `svc start` (an empty database gets the
 * demo set), which `svc db seed demo` runs on demand. Loaded on first use, so `svc serve` and
 * `svc worker` never load the seeds.
 */
type Seeds = typeof import('../../seeds/index.js');

let seeds: Promise<Seeds> | undefined;
const load = (): Promise<Seeds> => (seeds ??= import('../../seeds/index.js'));

/** Loads the demo set (idempotent); returns the names of the seeds run. */
export async function seedDemo(): Promise<string[]> {
  return (await load()).seedDemo();
}

/** True when the database has no users yet (`svc start` seeds only then). */
export async function isEmptyDatabase(): Promise<boolean> {
  return (await load()).isEmptyDatabase();
}

/** The lines `svc start` prints about the demo data (sign-ins, ids). */
export async function demoBanner(baseUrl: string): Promise<string[]> {
  return (await load()).demoBanner(baseUrl);
}
