/**
 * Shipper labels (issue 26; spec: shipper_label_url, the label PDF). Where the marketplace account
 * makes its labels through svc (credential label_mode `api`), the label of each order sent is bought
 * with ShipStation V1's `POST /orders/createlabelfororder` (label_carrier_code, label_service_code),
 * its `labelData` (a base64 PDF) kept as a private file attached to the Sales Order (read by whoever
 * may read the order) and shipper_label_url set to it. Otherwise (label_mode `elsewhere`, the default,
 * and every customer's own account) labels are made in ShipStation itself, and the order says so in
 * shipper_label_status, never with a made-up URL. A label that fails leaves the order sent and says
 * why in shipper_label_status (ShipStation's UI can then make it).
 */
import { systemActor } from '../../auth/actor.js';
import type { ConnectorContext, CreateOutcome, PartnerOrderInput } from '../../fulfilment/connector.js';
import { shipperCall, shipperMessage, type KeyPair } from './shipper.client.js';

const LABEL = '/orders/createlabelfororder';
export const LABEL_MADE_ELSEWHERE = 'Made in ShipStation';
export const LABEL_CREATED = 'Created';

type Created = Extract<CreateOutcome, { kind: 'created' }>;

/** Whether svc makes this account's labels: label_mode api, for the marketplace's own account only. */
export function labelsByApi(credentials: Readonly<Record<string, string>>, marketplacePair: boolean): boolean {
  return marketplacePair && (credentials.label_mode ?? '').trim().toLowerCase() === 'api';
}

const withFields = (outcome: Created, fields: Record<string, string>): Created => ({ ...outcome, fields: { ...outcome.fields, ...fields } });

/** The created order with its label: bought and kept (api), or said to be made elsewhere. */
export async function labelOf(outcome: Created, input: PartnerOrderInput, ctx: ConnectorContext, pair: KeyPair, marketplacePair: boolean): Promise<Created> {
  if (!labelsByApi(ctx.credentials, marketplacePair)) return withFields(outcome, { shipper_label_status: LABEL_MADE_ELSEWHERE });
  const failed = (why: string) => withFields(outcome, { shipper_label_status: `Label failed: ${why}`.slice(0, 300) });
  const carrierCode = ctx.credentials.label_carrier_code?.trim();
  const serviceCode = ctx.credentials.label_service_code?.trim();
  if (!carrierCode || !serviceCode) return failed('label_carrier_code and label_service_code are not set');
  const sent = await shipperCall(ctx, pair, {
    method: 'POST',
    url: `${ctx.credentials.base_url}${LABEL}`,
    endpoint: `POST ${LABEL}`,
    json: {
      orderId: Number(outcome.reference),
      carrierCode,
      serviceCode,
      packageCode: 'package',
      shipDate: new Date().toISOString().slice(0, 10),
      testLabel: false,
    },
  });
  if (!sent.ok) return failed(sent.reason);
  const labelData = (sent.res.json as { labelData?: unknown } | undefined)?.labelData;
  if (sent.res.status !== 200 || typeof labelData !== 'string' || !labelData)
    return failed(`shipper answered ${sent.res.status}${sent.res.status === 200 ? ' without labelData' : `: ${shipperMessage(sent.res)}`}`);
  // loaded when a label is kept: the partner registry is read by `svc --help`, which loads no database
  const { keepDocumentFile } = await import('../../files/system-files.js');
  const url = await keepDocumentFile(systemActor('connector:shipper', 'job'), {
    fileName: `label-${input.salesOrder}.pdf`,
    data: Buffer.from(labelData, 'base64'),
    doctype: 'Sales Order',
    docname: input.salesOrder,
    field: 'shipper_label_url',
  });
  return withFields(outcome, { shipper_label_url: url, shipper_label_status: LABEL_CREATED });
}
