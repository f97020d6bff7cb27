/** Assertions of the order tests on database state (the data they stand on comes from test/helpers/factories.ts). */
import type pg from 'pg';
import { MAIN } from '../helpers/factories.js';

export async function binOf(pg: pg.Client, item: string, warehouse = MAIN): Promise<{ actual: number; reserved: number }> {
  const { rows } = await pg.query(`SELECT actual_qty::float8 AS actual, reserved_qty::float8 AS reserved FROM bins WHERE item_code = $1 AND warehouse = $2`, [
    item,
    warehouse,
  ]);
  return rows[0];
}
