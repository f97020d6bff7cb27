/**
 * What the partners benchmarks share (bench/scenarios/partners.bench.ts and partners-drain.bench.ts):
 * the five partners, the demo's partner items mapped, stocked and credentialed against the simulators,
 * the demo doctor who orders them, and the order's body (one line per partner item, 503A checkout).
 */
import { systemActor, type Actor } from '../src/auth/actor.js';
import { loadUserActor } from '../src/auth/credentials.service.js';
import { setStock } from '../src/catalog/stock.service.js';
import { setProductMapping } from '../src/catalog/product-mapping.js';
import { DEMO_PARTNER_ITEMS } from '../src/cli/demo-partners.js';
import { setPartnerCredentials } from '../src/fulfilment/credentials/credentials.service.js';
import type { PartnerFleet } from '../src/simulators/fleet.js';
import type { PartnerKey } from '../src/simulators/index.js';
import { findUserByEmail } from '../src/users/users.service.js';

export const FIVE: PartnerKey[] = ['rxpartner', 'shipper', 'otcpartner', 'peptidepartner', 'storepartner'];
/** a budget no run reaches */
export const RAISED = 1_000_000;

const WAREHOUSE: Record<string, string> = {
  'DEMO-TESTO-503A': 'Pharmacy Vault - MSW',
  'DEMO-THERM-IR': 'Overflow Warehouse - MSE',
};

/** One line per demo partner item, from the warehouse that stocks it. */
export const PARTNER_LINES = DEMO_PARTNER_ITEMS.map(({ item }) => ({ item_code: item, warehouse: WAREHOUSE[item] ?? 'Main Warehouse - MSE' }));

/** A 503A order of the demo clinic with one of each partner's items. */
export const partnerOrderBody = () => ({
  customer: 'CUST-0001',
  delivery_date: '2026-12-31',
  shipping_address_name: 'CUST-0001-Shipping',
  items: PARTNER_LINES.map((l) => ({ ...l, qty: 1 })),
  checkout_npi_number: '1234567893',
  checkout_patient_first_name: 'Pat',
  checkout_patient_last_name: 'Bench',
  checkout_patient_dob: '1980-04-02',
  checkout_patient_gender: 'Female',
  professional_use_confirmation: 1,
  compliance_agreement_accepted: 1,
});

/** The five partners' credentials pointed at the fleet, each demo item mapped to its partner and stocked. */
export async function preparePartners(fleet: PartnerFleet): Promise<void> {
  const ops = systemActor('bench');
  for (const p of FIVE) await setPartnerCredentials(ops, p, fleet.credentials[p]);
  for (const { item, mapping } of DEMO_PARTNER_ITEMS) {
    await setProductMapping(ops, item, mapping);
    await setStock(ops, { item_code: item, warehouse: PARTNER_LINES.find((l) => l.item_code === item)!.warehouse, qty: 1_000_000, reason: 'bench' });
  }
}

/** The demo doctor, who places the benchmarks' orders. */
export async function doctorActor(): Promise<Actor> {
  const user = await findUserByEmail('doctor@demo.svc.local');
  const actor = user && (await loadUserActor(user.id, 'token'));
  if (!actor) throw new Error('the demo doctor is missing');
  return actor;
}
