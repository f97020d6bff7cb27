/**
 * Validates an order body against the database: customer and address in the actor's scope, the
 * price list, each line's item, warehouse, today's rate (the server never charges a client price)
 * and available stock (summed per item and warehouse), and the 503A rules. Computes the totals.
 */
import type { Actor } from '../auth/actor.js';
import { customerMatches } from '../auth/policy/index.js';
import type { Tx } from '../db/sequelize.js';
import { BusinessRuleError, NotFoundError } from '../shared/errors.js';
import { checkChoice, STANDARD_LIST } from '../catalog/prices.js';
import { isCustomerUser } from '../auth/policy/catalog.rules.js';
import { loadOrderFacts, type FactsItem } from '../catalog/order-facts.js';
import { exceedsMessage, groupLines, rowExceeding } from '../catalog/stock.service.js';
import { findFile, canReadFile } from '../files/files.service.js';
import { requireVerifiedDoctor } from './doctor.service.js';
import { isRealDate, isValidNpi } from './npi.js';
import { CONFIRM_FIELDS, FILE_FIELDS, PATIENT_FIELDS, type OrderInput } from './order.schemas.js';
import type { OrderLine } from './order-line.js';
import { recalledItemError } from '../catalog/item-recall.js';

export interface PreparedOrder {
  input: OrderInput;
  customer: { name: string; customer_name: string; territory: string | null; email: string | null };
  price_list: string;
  currency: string;
  transaction_date: string;
  lines: OrderLine[];
  grand_total: number;
  total_qty: number;
  is503a: boolean;
  /** file fields → file name, for attaching */
  files: Record<string, string>;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

type ItemRow = FactsItem;

function checkLines(input: OrderInput, items: Map<string, ItemRow>, warehouses: Set<string>): OrderLine[] {
  return input.items.map((l, i) => {
    const row = i + 1;
    const item = items.get(l.item_code);
    if (!item) throw new BusinessRuleError(`Row ${row}: Item ${l.item_code} not found`);
    if (!item.orderable) throw new BusinessRuleError(`Row ${row}: Item ${l.item_code} is not available for ordering`);
    if (!warehouses.has(l.warehouse)) throw new BusinessRuleError(`Row ${row}: Warehouse ${l.warehouse} not found`);
    const rate = item.rate;
    if (rate === null || rate === undefined) throw new BusinessRuleError('Price not found for item in price list');
    if (l.rate !== undefined && Math.abs(l.rate - rate) > 0.00005) {
      throw new BusinessRuleError(`Row ${row}: Rate ${l.rate} for item ${l.item_code} differs from the price list rate ${rate}`);
    }
    return {
      idx: row,
      item_code: l.item_code,
      item_name: item.item_name,
      qty: l.qty,
      uom: item.stock_uom,
      rate,
      amount: round2(l.qty * rate),
      warehouse: l.warehouse,
      vendor: item.vendor,
    };
  });
}

/** Availability check at creation (no reservation: submit reserves). Names the row that goes over. */
function checkStock(lines: OrderLine[], bins: { item_code: string; warehouse: string; available: number }[]): void {
  const groups = groupLines(lines);
  const available = new Map(bins.map((b) => [`${b.item_code}\u0000${b.warehouse}`, b.available]));
  const failures = groups
    .map((g) => ({ g, avail: available.get(`${g.item_code}\u0000${g.warehouse}`) ?? 0 }))
    .filter(({ g, avail }) => g.qty > avail)
    .map(({ g, avail }) => ({ row: rowExceeding(g, avail), item: g.item_code }))
    .sort((a, b) => a.row - b.row);
  if (failures.length) throw new BusinessRuleError(exceedsMessage(failures[0].row, failures[0].item));
}

/** The order body's facts (catalog/order-facts.ts, one round trip), checked in the usual order. */
async function loadFacts(actor: Actor, input: OrderInput, transaction?: Tx) {
  const row = await loadOrderFacts(
    { customer: input.customer, address: input.shipping_address_name, requestedList: input.price_list ?? null, lines: input.items },
    { transaction },
  );
  const c = row.customer;
  if (!c || !customerMatches(actor, c.name, c.territory, c.assigned_rep)) throw new NotFoundError(`Customer ${input.customer} not found`);
  if (c.disabled) throw new BusinessRuleError(`Customer ${input.customer} is disabled`);
  if (!c.address_ok) throw new NotFoundError(`Address ${input.shipping_address_name} not found`);
  return { ...row, customer: c };
}

const truthy = (v: unknown) => v === 1 || v === true || v === '1' || v === 'true';

/** 503A: verified doctor, NPI, patient fields, confirmations, files the actor may use. */
async function check503a(actor: Actor, input: OrderInput, customer: string, today: string, transaction?: Tx): Promise<Record<string, string>> {
  const npi = input.checkout_npi_number ? String(input.checkout_npi_number) : undefined;
  await requireVerifiedDoctor(actor, customer, npi, { transaction });
  for (const f of ['checkout_npi_number', ...PATIENT_FIELDS, ...CONFIRM_FIELDS]) {
    const v = input[f];
    if (v === undefined || v === null || v === '') throw new BusinessRuleError(`${f} is mandatory for a 503A order`);
  }
  if (!isValidNpi(npi)) throw new BusinessRuleError('checkout_npi_number is not a valid NPI');
  for (const f of CONFIRM_FIELDS) if (!truthy(input[f])) throw new BusinessRuleError(`${f} must be 1 for a 503A order`);
  const dob = input.checkout_patient_dob;
  if (!isRealDate(dob) || dob >= today || dob < '1900-01-01') throw new BusinessRuleError('checkout_patient_dob must be a real date in the past');
  const files: Record<string, string> = {};
  for (const f of FILE_FIELDS) {
    const ref = input[f];
    if (!ref) continue;
    const file = await findFile(String(ref), { transaction });
    if (!file || !(await canReadFile(actor, file, { transaction }))) throw new BusinessRuleError(`${f}: File ${String(ref)} not found`);
    files[f] = file.name;
  }
  return files;
}

/** Checks an order body against the database and prices it (reads only: a transaction is optional). */
export async function prepareOrder(actor: Actor, input: OrderInput, transaction?: Tx): Promise<PreparedOrder> {
  const facts = await loadFacts(actor, input, transaction);
  const { customer } = facts;
  // the list chosen for this customer (pricingCustomer gives the body's customer, as before)
  const choice = checkChoice(actor, facts.choice);
  if (!isCustomerUser(actor) && choice.name !== STANDARD_LIST && choice.name !== customer.price_list) {
    throw new BusinessRuleError(`Price List ${choice.name} is not assigned to customer ${customer.name}`);
  }
  const items = new Map(facts.items.map((r) => [r.item_code, r]));
  // an item under an all-lots recall is refused before any other check of its line (its recall is read with the item)
  const recalled = (input.items ?? []).map((l) => items.get(l.item_code)).find((i) => i?.recalled_by);
  if (recalled) throw recalledItemError(recalled.item_code, recalled.recalled_by!);
  const lines = checkLines(input, items, new Set(facts.warehouses));
  const currency = input.currency ?? choice.currency;
  if (currency !== choice.currency)
    throw new BusinessRuleError(`Currency ${currency} differs from the currency ${choice.currency} of Price List ${choice.name}`);
  const transactionDate = input.transaction_date ?? choice.today;
  const is503a = lines.some((l) => items.get(l.item_code)!.is_503a);
  if (!is503a && !input.delivery_date) throw new BusinessRuleError('Delivery Date is mandatory');
  if (input.delivery_date && input.delivery_date < transactionDate) throw new BusinessRuleError('Delivery Date cannot be before Transaction Date');
  checkStock(lines, facts.bins);
  const files = is503a ? await check503a(actor, input, customer.name, choice.today, transaction) : {};
  return {
    input,
    customer,
    price_list: choice.name,
    currency,
    transaction_date: transactionDate,
    lines,
    is503a,
    files,
    grand_total: round2(lines.reduce((s, l) => s + l.amount, 0)),
    total_qty: lines.reduce((s, l) => s + l.qty, 0),
  };
}
