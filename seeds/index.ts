/**
 * Demo data: the same set for `npm start`, `svc db seed demo` and the tests. Every seed is
 * idempotent (INSERT … ON CONFLICT DO NOTHING), so running it twice changes nothing.
 */
import { db, type Tx } from '../src/db/sequelize.js';
import { User } from '../src/users/user.model.js';
import { seedFoundation, foundationBanner } from './foundation.seed.js';
import { seedVendors, vendorBanner } from './vendor.seed.js';
import { seedCatalog, catalogBanner } from './catalog.seed.js';
import { seedSales, salesBanner } from './sales.seed.js';

export interface Seed {
  name: string;
  run(transaction: Tx): Promise<void>;
  /** lines `npm start` prints about this seed (credentials, ids) */
  banner?(baseUrl: string): Promise<string[]> | string[];
}

// Order matters: later seeds reference earlier rows. Domains append theirs.
const seeds: Seed[] = [
  { name: 'foundation', run: seedFoundation, banner: foundationBanner },
  { name: 'vendor', run: seedVendors, banner: vendorBanner },
  { name: 'catalog', run: seedCatalog, banner: catalogBanner },
  { name: 'sales', run: seedSales, banner: salesBanner },
];

export function registerSeed(seed: Seed): void {
  if (!seeds.some((s) => s.name === seed.name)) seeds.push(seed);
}

/** True when the database holds no users yet (npm start seeds only an empty database). */
export async function isEmptyDatabase(): Promise<boolean> {
  return (await User.findOne({ attributes: ['id'] })) === null;
}

/** Loads every seed in one transaction; returns their names. */
export async function seedDemo(): Promise<string[]> {
  await db().transaction(async (transaction) => {
    for (const seed of seeds) await seed.run(transaction);
  });
  return seeds.map((s) => s.name);
}

export async function demoBanner(baseUrl: string): Promise<string[]> {
  const lines: string[] = [];
  for (const seed of seeds) if (seed.banner) lines.push(...(await seed.banner(baseUrl)));
  return lines;
}
