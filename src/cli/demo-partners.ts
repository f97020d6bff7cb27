/**
 * The demo's fulfilment partners (`svc start` / npm start in development, `demo.partners`): the five
 * partner simulators on loopback ports, moving every order on a timer and reporting back to this
 * service; the partners' credentials pointed at them through the same service as `svc
 * partner-credentials set` (a partner an operator configured elsewhere is left alone); one demo item
 * mapped to each partner. What it did is printed (ports, items). See README "Demo: the five partners".
 */
import { systemActor } from '../auth/actor.js';
import { setProductMapping, type ProductMapping } from '../catalog/product-mapping.js';
import { getBin, setStock } from '../catalog/stock.service.js';
import { loadPartnerCredentials, setPartnerCredentials } from '../fulfilment/credentials/credentials.service.js';
import type { PartnerKey } from '../simulators/index.js';
import { PARTNER_SPECS } from '../partners/index.js';
import type { Config } from '../config/index.js';
import { startPartnerFleet, type PartnerFleet } from '../simulators/fleet.js';

const actor = systemActor('demo:partners');

/** One demo item per partner, with the partner's id of it (the storepartner simulator's default catalog has the variant). */
export const DEMO_PARTNER_ITEMS: { partner: PartnerKey; item: string; mapping: ProductMapping }[] = [
  { partner: 'rxpartner', item: 'DEMO-TESTO-503A', mapping: { rxpartner_drug_description: 'Testosterone cypionate 200 mg/mL, 10 mL vial' } },
  { partner: 'shipper', item: 'DEMO-BP-CUFF', mapping: { shipper_product_id: 'DEMO-BP-CUFF' } },
  { partner: 'otcpartner', item: 'DEMO-ALC-PREP', mapping: { otc_sku: 'OTC-ALC-PREP-200' } },
  { partner: 'peptidepartner', item: 'DEMO-THERM-IR', mapping: { peptide_partner_product_id: 'VAR-DEMO-THERM-IR' } },
  { partner: 'storepartner', item: 'DEMO-N95', mapping: { store_variant_id: 'gid://shopify/ProductVariant/44100000001' } },
];

/** The demo's out-of-stock thermometer gets this much in the Overflow warehouse, so the five-partner order can be placed. */
const THERMOMETER_STOCK = { item_code: 'DEMO-THERM-IR', warehouse: 'Overflow Warehouse - MSE', qty: 40 };

const LOOPBACK_URL = /^https?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?(\/|$)/i;

/** The partner's stored URL fields all point at loopback (an earlier demo), or nothing is stored: the demo may (re)configure it. */
async function demoMayConfigure(partner: PartnerKey): Promise<boolean> {
  const stored = await loadPartnerCredentials(partner);
  const urls = PARTNER_SPECS[partner].credentials.filter((f) => f.url && stored[f.name]).map((f) => stored[f.name]);
  return Object.keys(stored).length === 0 || (urls.length > 0 && urls.every((u) => LOOPBACK_URL.test(u)));
}

export interface DemoPartners {
  lines: string[];
  close(): Promise<void>;
}

/** Starts the simulators and configures svc for them; never stops the service: a failure is printed and the demo runs without them. */
export async function startDemoPartners(config: Config, serviceUrl: string): Promise<DemoPartners> {
  let fleet: PartnerFleet;
  const port = config.demo.partnersPort;
  try {
    fleet = await startPartnerFleet({ serviceUrl, basePort: port || undefined, advanceEveryMs: config.demo.advanceSeconds * 1000 });
  } catch (err) {
    return {
      lines: [`Demo partners not started (${(err as Error).message}): set SVC_DEMO_PARTNERS_PORT to free ports (0 = any) or SVC_DEMO_PARTNERS=false.`],
      close: () => Promise.resolve(),
    };
  }
  try {
    return { lines: await configureDemo(config, fleet), close: () => fleet.close() };
  } catch (err) {
    await fleet.close();
    return { lines: [`Demo partners not configured (${(err as Error).message}); the service runs without them.`], close: () => Promise.resolve() };
  }
}

/** Points svc at the simulators, maps the demo items; answers the lines to print. */
async function configureDemo(config: Config, fleet: PartnerFleet): Promise<string[]> {
  const lines = [`Demo fulfilment partners (simulators; each order moves one status every ${config.demo.advanceSeconds} s):`];
  for (const { partner, item, mapping } of DEMO_PARTNER_ITEMS) {
    const sim = fleet.sims[partner];
    const configured = await demoMayConfigure(partner);
    if (configured) await setPartnerCredentials(actor, partner, fleet.credentials[partner]);
    await setProductMapping(actor, item, mapping);
    const note = configured ? '' : ' (credentials left as configured: not pointed at the simulator)';
    lines.push(`  ${partner.padEnd(15)} ${sim.url.padEnd(24)} ${item}${note}`);
  }
  const bin = await getBin(THERMOMETER_STOCK.item_code, THERMOMETER_STOCK.warehouse);
  if (bin.actual_qty === 0) await setStock(actor, { ...THERMOMETER_STOCK, reason: 'demo partners' });
  lines.push(`  Order those items (the 503A testosterone as doctor@demo.svc.local) and watch each line travel: README "Demo: the five partners".`);
  return lines;
}
