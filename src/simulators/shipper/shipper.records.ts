/**
 * The shipper's Shipment and Fulfillment objects as ShipStation V1 answers them (their keys in the
 * API's order): a label makes a shipment, markasshipped (or delivery without one) a fulfillment.
 */
import { randomInt } from 'node:crypto';
import { ssDate } from './shipper.orders.js';

/** The Shipment a label makes for `o` (the order as the API answers it), tracked by `trackingNumber`. */
export function shipmentRecord(
  o: Record<string, unknown>,
  label: { trackingNumber: string; carrierCode: string; serviceCode: string; batchId: number },
): Record<string, unknown> & { shipDate: string; carrierCode: string } {
  return {
    shipmentId: randomInt(100_000_000, 999_999_999),
    orderId: o.orderId,
    orderKey: o.orderKey,
    userId: null,
    customerEmail: o.customerEmail,
    orderNumber: o.orderNumber,
    createDate: ssDate(),
    shipDate: ssDate().slice(0, 10),
    shipmentCost: 9.87,
    insuranceCost: 0,
    trackingNumber: label.trackingNumber,
    isReturnLabel: false,
    batchNumber: String(label.batchId),
    carrierCode: label.carrierCode,
    serviceCode: label.serviceCode,
    packageCode: 'package',
    confirmation: 'none',
    warehouseId: (o.advancedOptions as { warehouseId: number }).warehouseId,
    voided: false,
    voidDate: null,
    marketplaceNotified: false,
    notifyErrorMessage: null,
    shipTo: o.shipTo,
    weight: o.weight,
    dimensions: null,
    insuranceOptions: null,
    advancedOptions: { storeId: (o.advancedOptions as { storeId: number }).storeId },
    shipmentItems: null,
    labelData: null,
    formData: null,
    batchId: label.batchId,
  };
}

/** The Fulfillment of `o`; without a shipDate it is shipped today. */
export function fulfillmentRecord(
  o: Record<string, unknown>,
  shipped: { trackingNumber: unknown; shipDate?: unknown; carrierCode: unknown; marketplaceNotified: boolean },
): Record<string, unknown> {
  return {
    fulfillmentId: randomInt(10_000_000, 99_999_999),
    orderId: o.orderId,
    orderNumber: o.orderNumber,
    userId: null,
    customerEmail: o.customerEmail,
    trackingNumber: shipped.trackingNumber,
    createDate: ssDate(),
    shipDate: shipped.shipDate ?? ssDate().slice(0, 10),
    voidDate: null,
    deliveryDate: null,
    carrierCode: shipped.carrierCode,
    fulfillmentProviderCode: null,
    fulfillmentServiceCode: null,
    fulfillmentFee: 0,
    voidRequested: false,
    voided: false,
    marketplaceNotified: shipped.marketplaceNotified,
    notifyErrorMessage: null,
    shipTo: o.shipTo,
  };
}
