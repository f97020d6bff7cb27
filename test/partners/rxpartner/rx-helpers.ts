/** What the rxpartner connector tests share: the simulator's credentials, configuring them, 503A and OTC orders for it. */
import type pg from 'pg';
import { setPartnerCredentials } from '../../../src/fulfilment/credentials/credentials.service.js';
import { startRxpartnerSimulator, type RxOptions, type RunningSimulator } from '../../../src/simulators/index.js';
import type { TestApp } from '../../helpers/app.js';
import { buildItem, buildOrder, MAIN } from '../../helpers/factories.js';
import { ops } from '../../fulfilment/helpers.js';

export const RX = { clientId: 'rx-client-0123', clientSecret: 'rx-client-secret-0123456789', practiceId: 'PRACTICE-7' };
/** The demo doctor's NPI (doctor@demo.svc.local, verified for CUST-0001). */
export const DOCTOR_NPI = '1234567893';

export function rxSimulator(app: TestApp, options: Partial<RxOptions> = {}): Promise<RunningSimulator> {
  return startRxpartnerSimulator({
    credentials: { clientId: RX.clientId, clientSecret: RX.clientSecret },
    webhookUrl: `${app.url}/api/method/svc.rxpartner.webhook`,
    ...options,
  });
}

export async function configureRx(url: string, extra: Record<string, string> = {}): Promise<void> {
  await setPartnerCredentials(ops, 'rxpartner', {
    base_url: url,
    client_id: RX.clientId,
    client_secret: RX.clientSecret,
    default_practice_id: RX.practiceId,
    ...extra,
  });
}

export interface Patient {
  first: string;
  last: string;
  dob: string;
}

/** A submitted 503A order of the demo doctor for `patient`: a prescription line, and an OTC line when `otc`. */
export async function rxOrder(patient: Patient, opts: { otc?: boolean; drug?: string } = {}): Promise<string> {
  const rx = await buildItem({
    is503a: true,
    mapping: { rxpartner_drug_description: opts.drug ?? 'Testosterone cypionate 200 mg/mL, 10 mL vial' },
    stock: { [MAIN]: 50 },
  });
  const lines = [{ item_code: rx, qty: 1 }];
  if (opts.otc) lines.push({ item_code: await buildItem({ mapping: { rxpartner_drug_description: 'RX-OTC-SYRINGES-10' } }), qty: 2 });
  const { name } = await buildOrder({
    by: 'doctor@demo.svc.local',
    submitted: true,
    lines,
    body: {
      delivery_date: undefined,
      checkout_npi_number: DOCTOR_NPI,
      checkout_patient_first_name: patient.first,
      checkout_patient_last_name: patient.last,
      checkout_patient_dob: patient.dob,
      checkout_patient_gender: 'Female',
      professional_use_confirmation: 1,
      compliance_agreement_accepted: 1,
    },
  });
  return name;
}

/** A submitted order (not 503A) of rxpartner-mapped OTC items only. */
export async function otcOnlyOrder(): Promise<string> {
  const item = await buildItem({ mapping: { rxpartner_drug_description: 'RX-OTC-GAUZE' } });
  return (await buildOrder({ submitted: true, lines: [{ item_code: item, qty: 3 }] })).name;
}

/** The order's rxpartner_* fields as stored. */
export async function rxFields(db: pg.Client, salesOrder: string): Promise<Record<string, string | null>> {
  return (
    await db.query(
      `SELECT status, rxpartner_reference_id, rxpartner_status, rxpartner_tracking_number, rxpartner_carrier, rxpartner_tracking_url, rxpartner_sync_date FROM sales_orders WHERE name = $1`,
      [salesOrder],
    )
  ).rows[0];
}

/** Token requests the simulator received. */
export const tokenRequests = (sim: RunningSimulator) => sim.requests().filter((r) => r.method === 'POST' && r.path === '/v1/oauth2/token');
