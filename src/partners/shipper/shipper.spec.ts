/** shipper's spec: what fulfilment, the credentials and the CLI know of it (src/fulfilment/partners.ts). */
import { credentialField, orderFieldNames, type PartnerSpec } from '../../fulfilment/partners.js';

export const shipperSpec: PartnerSpec = {
  key: 'shipper',
  label: 'Shipping platform',
  mappingField: 'shipper_product_id',
  credentials: [
    credentialField('base_url', "the partner's API address", { url: true }),
    // the marketplace's own key pair; a customer's pair comes through connect_shipper
    credentialField('api_key', 'API key of the marketplace account', { secret: true, required: false }),
    credentialField('api_secret', 'API secret of the marketplace account', { secret: true, required: false }),
    credentialField('warehouse_id', 'ship-from warehouse id (advancedOptions.warehouseId); the account default when not set', { required: false }),
    // issue 24: the marketplace's webhooks are unsigned; the token in their target URL is what tells them from anyone's
    credentialField(
      'webhook_token',
      'token in the target URL of the marketplace account’s webhooks (…/svc.shipper.webhook?token=<it>); without it they are refused',
      {
        secret: true,
        required: false,
      },
    ),
    // issue 26: who makes the labels of this account's orders
    credentialField(
      'label_mode',
      'api: svc buys each order’s label (createlabelfororder) and keeps the PDF; elsewhere (default): labels are made in ShipStation',
      {
        required: false,
      },
    ),
    credentialField('label_carrier_code', 'with label_mode api: the carrier of the labels, e.g. ups_walleted', { required: false }),
    credentialField('label_service_code', 'with label_mode api: the service of the labels, e.g. ups_ground', { required: false }),
  ],
  orderFields: orderFieldNames('shipper', { reference: 'shipper_order_id', labelUrl: 'shipper_label_url' }),
  webhooks: true,
};
