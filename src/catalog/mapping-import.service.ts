/**
 * `svc product-mapping import <file>`: the product mappings of many products from a CSV or XLSX file
 * (columns item_code and the spec's mapping fields), validated like a price-list import and merged
 * in one statement. A mapping column present in the file sets that field for every row (an empty
 * cell clears it); a column left out of the file leaves that field as it is.
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { recordAuditForEach } from '../audit/audit.service.js';
import { execute, selectRows, withTransaction, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { dropBadRows, maxLength, stageAndCheck, type ColumnSpec, type ImportIssue, type ImportOptions } from './import-stage.js';
import { Item } from './item.model.js';
import { MAPPING_FIELDS } from './product-mapping.js';

/** item_code, then the mapping fields in the spec's order. */
export const MAPPING_COLUMNS: ColumnSpec[] = [
  { name: 'item_code', aliases: ['sku'], required: true, type: 'text' },
  ...['rxpartner_drug_description', 'shipper_product_id', 'otc_sku', 'peptide_partner_product_id', 'store_variant_id'].map((name): ColumnSpec => ({
    name,
    required: false,
    type: 'text',
    check: maxLength(500),
  })),
];

export interface MappingImportResult {
  file: string;
  rows: number;
  invalid: number;
  issues: ImportIssue[];
  changed: number;
  unchanged: number;
  written: boolean;
  dry_run: boolean;
  /** the mapping columns the file sets */
  fields: string[];
}

const STAGE = 'svc_mapping_import';

/** The database checks of the staged rows: unknown items and items named twice. */
const checksSql = once(() =>
  sqlFor({
    i: Item,
  })(`SELECT line, 'item_code' AS col, format('unknown item "%s"', st.item_code) AS reason, 'unknown item' AS kind, st.item_code AS value FROM ${STAGE} st
          WHERE st.item_code IS NOT NULL AND NOT EXISTS (SELECT 1 FROM {i} WHERE {i.itemCode} = st.item_code)
         UNION ALL
         SELECT line, 'item_code', format('duplicate: %s is also on line %s', item_code, first), 'duplicate', item_code FROM
           (SELECT line, item_code, min(line) OVER (PARTITION BY item_code) AS first FROM ${STAGE} WHERE item_code IS NOT NULL) d WHERE line <> first`),
);

/** Imports product mappings; every row checked first, all or nothing (see importPriceList). */
export async function importProductMappings(actor: Actor, path: string, opts: ImportOptions): Promise<MappingImportResult> {
  authorize(actor, 'update', 'Product Mapping');
  return withTransaction(undefined, async (transaction) => {
    const { stage, issues, badLines } = await stageAndCheck(transaction, path, opts, { table: STAGE, columns: MAPPING_COLUMNS, checks: checksSql() });
    const fields = MAPPING_FIELDS.filter((m) => stage.headers.has(m.field));
    const result: MappingImportResult = {
      file: path,
      rows: stage.rows,
      invalid: badLines.length,
      issues,
      changed: 0,
      unchanged: 0,
      written: false,
      dry_run: Boolean(opts.dryRun),
      fields: fields.map((f) => f.field),
    };
    if (badLines.length && !opts.skipInvalid) return result;
    await dropBadRows(transaction, STAGE, badLines);
    await mergeMappings(transaction, actor, path, fields, result);
    return result;
  });
}

/** Counts the changed and unchanged mappings and (not in a dry run) writes the changed ones, audited, into `result`. */
async function mergeMappings(
  transaction: Tx,
  actor: Actor,
  path: string,
  fields: (typeof MAPPING_FIELDS)[number][],
  result: MappingImportResult,
): Promise<void> {
  const s = sqlFor({ i: Item });
  const cols = (prefix: string) => fields.map((f) => `${prefix}${f.field}`).join(', ');
  const same = fields.length ? s(`ROW(${fields.map((f) => `{i.${f.attribute}}`).join(', ')}) IS NOT DISTINCT FROM ROW(${cols('st.')})`) : 'TRUE';
  const [counts] = await selectRows<{ changed: number; unchanged: number }>(
    s(`SELECT count(*) FILTER (WHERE NOT ${same})::int AS changed, count(*) FILTER (WHERE ${same})::int AS unchanged
         FROM ${STAGE} st JOIN {i} ON {i.itemCode} = st.item_code`),
    [],
    { transaction },
  );
  Object.assign(result, counts);
  if (result.dry_run || !fields.length) return;
  const updated = await execute<{ item_code: string }>(
    s(`UPDATE {@i} i SET ${fields
      .map((f) => `{i:${f.attribute}}`)
      .map((c, k) => `${c} = st.${fields[k].field}`)
      .join(', ')}, {i:updatedAt} = now()
         FROM ${STAGE} st WHERE {i.itemCode} = st.item_code AND NOT ${same}
       RETURNING {i.itemCode} AS item_code`),
    [],
    { transaction },
  );
  await recordAuditForEach(
    transaction,
    actor,
    { action: 'update', object_type: 'Item', fields: result.fields, detail: { what: 'product mapping', via: 'import', file: path.split('/').pop() } },
    updated.map((r) => r.item_code),
  );
  result.changed = updated.length;
  result.written = updated.length > 0;
}
