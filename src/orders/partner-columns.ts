/**
 * The spec's partner fields on the Sales Order ("Sales Order (returned)": rxpartner_*, shipper_*,
 * otc_*, peptide_*, store_*), in one module: their columns (the model spreads them), their wire
 * names (read-only to clients, hidden from vendors), and what their statuses say about an order
 * having shipped. Columns because the spec returns them flat on the Sales Order and clients filter on
 * them; the partners' own state is the partner orders' (fulfilment). docs/decisions.md "Partner
 * fields on the Sales Order".
 */
import { DataTypes, type CreationOptional } from 'sequelize';

const text = () => ({ type: DataTypes.TEXT });
const instant = () => ({ type: DataTypes.DATE });
type Opt<T> = CreationOptional<T | null>;

/** The columns (all nullable), by prefix. */
export const PARTNER_ATTRIBUTES = {
  rxpartnerReferenceId: text(),
  rxpartnerStatus: text(),
  rxpartnerTrackingNumber: text(),
  rxpartnerCarrier: text(),
  rxpartnerTrackingUrl: text(),
  rxpartnerSyncDate: instant(),
  shipperOrderId: text(),
  shipperStatus: text(),
  shipperTrackingNumber: text(),
  shipperCarrier: text(),
  shipperTrackingUrl: text(),
  shipperLabelUrl: text(),
  shipperLabelStatus: text(),
  shipperSyncDate: instant(),
  otcReference: text(),
  otcTransactionId: text(),
  otcStatus: text(),
  otcTrackingNumber: text(),
  otcTrackingUrl: text(),
  otcCarrier: text(),
  otcSyncDate: instant(),
  peptideOrderId: text(),
  peptideStatus: text(),
  peptideTrackingNumber: text(),
  peptideCarrier: text(),
  peptideTrackingUrl: text(),
  peptideShippingTier: text(),
  peptideSyncDate: instant(),
  storeOrderId: text(),
  storeOrderName: text(),
  storeStatus: text(),
  storeTrackingNumber: text(),
  storeCarrier: text(),
  storeTrackingUrl: text(),
  storeSyncDate: instant(),
};

/** The same columns, typed on SalesOrder (sales-order.model.ts merges this interface). */
export interface PartnerColumns {
  rxpartnerReferenceId: Opt<string>;
  rxpartnerStatus: Opt<string>;
  rxpartnerTrackingNumber: Opt<string>;
  rxpartnerCarrier: Opt<string>;
  rxpartnerTrackingUrl: Opt<string>;
  rxpartnerSyncDate: Opt<Date>;
  shipperOrderId: Opt<string>;
  shipperStatus: Opt<string>;
  shipperTrackingNumber: Opt<string>;
  shipperCarrier: Opt<string>;
  shipperTrackingUrl: Opt<string>;
  shipperLabelUrl: Opt<string>;
  /** issue 26: Created (the label PDF is shipper_label_url), Made in ShipStation (label_mode elsewhere), or Label failed: <why> */
  shipperLabelStatus: Opt<string>;
  shipperSyncDate: Opt<Date>;
  otcReference: Opt<string>;
  otcTransactionId: Opt<string>;
  otcStatus: Opt<string>;
  otcTrackingNumber: Opt<string>;
  otcTrackingUrl: Opt<string>;
  otcCarrier: Opt<string>;
  otcSyncDate: Opt<Date>;
  peptideOrderId: Opt<string>;
  peptideStatus: Opt<string>;
  peptideTrackingNumber: Opt<string>;
  peptideCarrier: Opt<string>;
  peptideTrackingUrl: Opt<string>;
  peptideShippingTier: Opt<string>;
  peptideSyncDate: Opt<Date>;
  storeOrderId: Opt<string>;
  storeOrderName: Opt<string>;
  storeStatus: Opt<string>;
  storeTrackingNumber: Opt<string>;
  storeCarrier: Opt<string>;
  storeTrackingUrl: Opt<string>;
  storeSyncDate: Opt<Date>;
}

const snake = (attribute: string) => attribute.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Their wire names, in the order a Sales Order shows them (e.g. rxpartner_reference_id). */
export const PARTNER_FIELDS: readonly string[] = Object.keys(PARTNER_ATTRIBUTES).map(snake);

/**
 * SQL (alias so, the order): a partner's status on the order says it shipped. A partner's own
 * shipment row does not count by itself (it shows the order awaiting tracking once the partner has it).
 */
export const PARTNER_SHIPPED_SQL = `{so.rxpartnerStatus} IN ('Shipped', 'Delivered') OR {so.shipperStatus} IN ('Shipped', 'Delivered') OR {so.otcStatus} IN ('Shipped', 'Completed')
  OR {so.peptideStatus} IN ('Shipped', 'Delivered') OR {so.storeStatus} = 'Fulfilled'`;
