/** rxpartner's spec: what fulfilment, the credentials and the CLI know of it (src/fulfilment/partners.ts). */
import { credentialField, orderFieldNames, type PartnerSpec } from '../../fulfilment/partners.js';

export const rxpartnerSpec: PartnerSpec = {
  key: 'rxpartner',
  label: 'Prescription pharmacy partner',
  mappingField: 'rxpartner_drug_description',
  credentials: [
    credentialField('client_id', 'OAuth client id'),
    credentialField('client_secret', 'OAuth client secret (also verifies webhooks)', { secret: true }),
    credentialField('default_practice_id', 'practice id sent with prescriptions'),
    credentialField('partner_account', 'sub-account for aggregators', { required: false }),
    credentialField('base_url', 'production or sandbox address of the partner', { url: true }),
  ],
  orderFields: orderFieldNames('rxpartner', { reference: 'rxpartner_reference_id' }),
  webhooks: true,
  patientOrders: true,
};
