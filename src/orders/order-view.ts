/**
 * A vendor's projection of a Sales Order, one definition for the document (GET) and for every list,
 * count and get_value: its own lines' totals, and none of the order's 503A flag, owner or partner
 * fields (those belong to the clinic, the marketplace and the partners fulfilling other lines).
 */
import type { FieldSource } from '../shared/doctype.js';
import { sqlValue } from '../db/sql-names.js';
import { orderSql } from './order-sql.js';
import { PARTNER_FIELDS } from './order.schemas.js';

/** Header fields a vendor never reads. */
export const VENDOR_HIDDEN_FIELDS: readonly string[] = ['is_503a', 'owner', ...PARTNER_FIELDS];

/** A vendor's totals over its own lines, rounded as the document rounds them. */
export function vendorTotals(lines: Record<string, unknown>[]): { grand_total: number; total_qty: number } {
  const sum = (k: string) => lines.reduce((s, l) => s + Number(l[k]), 0);
  return { grand_total: Math.round(sum('amount') * 100) / 100, total_qty: sum('qty') };
}

/** SQL: the sum of `column` over the vendor's lines of the order aliased `t`. */
const ownLines = (vendor: string, expr: string) => (t: string) =>
  orderSql(`(SELECT COALESCE(${expr}, 0)::float8 FROM {soi} WHERE {soi.parent} = ${t}.name AND {soi.vendor} = ${sqlValue(vendor)})`);

/** The list fields of `all` as the vendor reads them (the document's projection). */
export function vendorOrderFields(all: Record<string, FieldSource>, vendor: string): Record<string, FieldSource> {
  const fields = Object.fromEntries(Object.entries(all).filter(([f]) => !VENDOR_HIDDEN_FIELDS.includes(f)));
  return {
    ...fields,
    grand_total: ownLines(vendor, orderSql('round(sum({soi.amount}), 2)')),
    total_qty: ownLines(vendor, orderSql('sum({soi.qty})')),
  };
}
