/**
 * The ConnectorContext of a call to a partner, built in one place for the partner order handler
 * and `svc partner-credentials test`: credentials, the logged HTTP client, the shared budgets and
 * limits, the shared token cache, and (when an order is sent) the patient registry kept by org.
 */
import { findPartnerPatient, rememberPartnerPatient } from '../org/partner-patients.service.js';
import { verifyNpi } from '../orders/npi-registry.service.js';
import { partnerBudget, partnerLimits } from './budget.js';
import type { ConnectorContext, Credentials, PatientRegistry, PrescriberCheck } from './connector.js';
import { partnerHttp, type CallScope } from './partner-http.js';
import type { PartnerKey } from './partners.js';
import { tokenCache } from './token-cache.service.js';

/** The partner's patients, each remembered with the order being sent (a patient event names that order). */
function patientRegistry(partner: PartnerKey, salesOrder: string | null): PatientRegistry {
  return {
    async find(customer, key) {
      const row = await findPartnerPatient(customer, partner, key);
      return row ? { id: row.partner_patient_id, status: row.status, detail: row.detail } : null;
    },
    async remember(customer, key, p) {
      await rememberPartnerPatient(customer, partner, key, { id: p.id, status: p.status, detail: p.detail ?? null, salesOrder });
    },
  };
}

/** A prescriber's NPI through the registry check of orders (issue 13): a registry that cannot answer is a retry. */
async function checkPrescriber(npi: string): Promise<PrescriberCheck> {
  const v = await verifyNpi(npi);
  return v.ok ? { ok: true } : { ok: false, retry: v.reason === 'unavailable', message: v.message };
}

export function connectorContext(partner: PartnerKey, credentials: Credentials, scope: Omit<CallScope, 'partner'> & { signal: AbortSignal }): ConnectorContext {
  return {
    credentials,
    http: partnerHttp({ partner, ...scope }),
    budget: partnerBudget(scope.signal),
    signal: scope.signal,
    limits: partnerLimits(),
    tokens: tokenCache(partner),
    npi: checkPrescriber,
    ...(scope.salesOrder ? { patients: patientRegistry(partner, scope.salesOrder) } : {}),
  };
}
