/**
 * Every table's model, bound in one place: initModels binds them to the process's Sequelize and
 * declares their associations. It is part of the composition root: src/modules.ts plugs it into the
 * database layer (plugModels), so initDatabase binds the models of every role (serve, worker, CLI,
 * tests, bench) while src/db imports no domain. Each model lives in the domain folder that owns its
 * table (docs/development/database.md lists the owners); test/db/models.test.ts holds them against
 * the migrated schema.
 */
import type { Sequelize } from 'sequelize';
import { AuditEvent } from './audit/audit-event.model.js';
import { ApiKey } from './auth/api-key.model.js';
import { Session } from './auth/session.model.js';
import { Bin } from './catalog/bin.model.js';
import { ItemGroup } from './catalog/item-group.model.js';
import { ItemPrice } from './catalog/item-price.model.js';
import { Item } from './catalog/item.model.js';
import { PriceList } from './catalog/price-list.model.js';
import { StockLedgerEntry } from './catalog/stock-ledger-entry.model.js';
import { Uom } from './catalog/uom.model.js';
import { Warehouse } from './catalog/warehouse.model.js';
import { PartnerCall } from './fulfilment/partner-call.model.js';
import { PartnerCredential } from './fulfilment/credentials/partner-credential.model.js';
import { PartnerEventRecord } from './fulfilment/partner-event.model.js';
import { PartnerFollowUp } from './fulfilment/partner-follow-up.model.js';
import { PartnerOrder } from './fulfilment/partner-order.model.js';
import { PartnerToken } from './fulfilment/partner-token.model.js';
import { PartnerWebhookNonce } from './fulfilment/partner-webhook-nonce.model.js';
import { PartnerWebhookDrop } from './fulfilment/partner-webhook-drop.model.js';
import { StoredFile } from './files/file.model.js';
import { SalesOrderItem } from './orders/sales-order-item.model.js';
import { SalesOrder } from './orders/sales-order.model.js';
import { NpiRegistryEntry } from './orders/npi-registry-entry.model.js';
import { ShipmentLot } from './orders/shipment-lot.model.js';
import { Shipment } from './orders/shipment.model.js';
import { ShipmentNotice } from './orders/shipment-notice.model.js';
import { VendorOrder } from './orders/vendor-order.model.js';
import { Address } from './org/address.model.js';
import { Company } from './org/company.model.js';
import { Customer } from './org/customer.model.js';
import { CustomerPartnerPatient } from './org/customer-partner-patient.model.js';
import { SalesPerson } from './org/sales-person.model.js';
import { Territory } from './org/territory.model.js';
import { SalesCredit } from './sales/sales-credit.model.js';
import { SalesCreditDelta } from './sales/sales-credit-delta.model.js';
import { SalesInvitation } from './sales/sales-invitation.model.js';
import { CustomerInvitation } from './sales/customer-invitation.model.js';
import { SalesRepDay } from './sales/sales-rep-day.model.js';
import { SalesRepMonth } from './sales/sales-rep-month.model.js';
import { SalesRepStreak } from './sales/sales-rep-streak.model.js';
import { SalesCommissionPlans } from './sales/sales-commission-plans.model.js';
import { OutboxAttempt } from './shared/outbox-attempt.model.js';
import { Outbox } from './shared/outbox.model.js';
import { RateBudgetHit } from './shared/rate-budget-hit.model.js';
import { RateBudget } from './shared/rate-budget.model.js';
import { RateCounter } from './shared/rate-counter.model.js';
import { WorkerHeartbeat } from './shared/worker-heartbeat.model.js';
import { User } from './users/user.model.js';
import { IdempotencyKey } from './vendor-api/idempotency-key.model.js';
import { VendorApiLog } from './vendor-api/vendor-api-log.model.js';
import { StockUpdateRequest } from './vendors/stock-update-request.model.js';
import { VendorProfile } from './vendors/vendor-profile.model.js';
import { IntegrationConnection } from './integrations/integration-connection.model.js';
import { PasswordReset } from './integrations/password-reset.model.js';
import { OAuthState } from './integrations/oauth-state.model.js';
import { StoreVariant } from './integrations/store-variant.model.js';
import { StoreOrderImport } from './integrations/store-order.model.js';
import { Recall } from './recalls/recall.model.js';
import { RecallLine } from './recalls/recall-line.model.js';
import { RecallCustomer } from './recalls/recall-customer.model.js';

/** Every model, in no particular order; one per table of the public schema (but umzug's). */
export const MODELS = [
  Company,
  Territory,
  SalesPerson,
  Customer,
  Address,
  PriceList,
  ItemGroup,
  Uom,
  Item,
  ItemPrice,
  Warehouse,
  Bin,
  StockLedgerEntry,
  User,
  Session,
  ApiKey,
  Outbox,
  OutboxAttempt,
  RateCounter,
  AuditEvent,
  StoredFile,
  VendorProfile,
  StockUpdateRequest,
  IdempotencyKey,
  VendorApiLog,
  SalesOrder,
  SalesOrderItem,
  Shipment,
  ShipmentLot,
  ShipmentNotice,
  VendorOrder,
  RateBudgetHit,
  WorkerHeartbeat,
  RateBudget,
  PartnerCredential,
  PartnerOrder,
  PartnerCall,
  PartnerEventRecord,
  PartnerToken,
  PartnerWebhookNonce,
  PartnerWebhookDrop,
  CustomerPartnerPatient,
  SalesCredit,
  SalesCreditDelta,
  SalesRepDay,
  SalesRepMonth,
  SalesRepStreak,
  SalesCommissionPlans,
  SalesInvitation,
  CustomerInvitation,
  NpiRegistryEntry,
  PartnerFollowUp,
  IntegrationConnection,
  OAuthState,
  StoreVariant,
  StoreOrderImport,
  PasswordReset,
  Recall,
  RecallLine,
  RecallCustomer,
] as const;

/** Binds every model to `sequelize` and declares the associations (again for each new instance). */
export function initModels(sequelize: Sequelize): void {
  for (const model of MODELS) model.initModel(sequelize);
  associateOrg();
  associateCatalog();
  associatePeople();
  associateVendors();
  associateOrders();
  associatePartners();
}

// Foreign keys are the migrations' business: no association adds a constraint or an attribute.
const fk = (foreignKey: string, as: string, targetKey = 'name') => ({ foreignKey, as, targetKey, constraints: false });
const many = (foreignKey: string, as: string, sourceKey = 'name') => ({ foreignKey, as, sourceKey, constraints: false });

function associateOrg(): void {
  Territory.belongsTo(Territory, fk('parentTerritory', 'parent'));
  SalesPerson.belongsTo(SalesPerson, fk('parentSalesPerson', 'manager'));
  SalesPerson.belongsTo(Territory, fk('territory', 'territoryRecord'));
  Customer.belongsTo(Territory, fk('territory', 'territoryRecord'));
  Customer.belongsTo(PriceList, fk('priceList', 'priceListRecord'));
  Customer.belongsTo(SalesPerson, fk('assignedRep', 'rep'));
  Customer.hasMany(Address, many('customer', 'addresses'));
  Address.belongsTo(Customer, fk('customer', 'customerRecord'));
}

function associateCatalog(): void {
  ItemGroup.belongsTo(ItemGroup, fk('parentItemGroup', 'parent'));
  Item.belongsTo(Uom, fk('stockUom', 'stockUnit'));
  Item.belongsTo(ItemGroup, fk('itemGroup', 'group'));
  Item.belongsTo(VendorProfile, fk('vendor', 'vendorProfile'));
  Item.hasMany(ItemPrice, many('itemCode', 'prices', 'itemCode'));
  Item.hasMany(Bin, many('itemCode', 'bins', 'itemCode'));
  ItemPrice.belongsTo(Item, fk('itemCode', 'item', 'itemCode'));
  ItemPrice.belongsTo(PriceList, fk('priceList', 'priceListRecord'));
  ItemPrice.belongsTo(Uom, fk('uom', 'unit'));
  Warehouse.belongsTo(Company, fk('company', 'companyRecord'));
  Warehouse.belongsTo(VendorProfile, fk('vendor', 'vendorProfile'));
  Bin.belongsTo(Item, fk('itemCode', 'item', 'itemCode'));
  Bin.belongsTo(Warehouse, fk('warehouse', 'warehouseRecord'));
  StockLedgerEntry.belongsTo(Item, fk('itemCode', 'item', 'itemCode'));
  StockLedgerEntry.belongsTo(Warehouse, fk('warehouse', 'warehouseRecord'));
}

function associatePeople(): void {
  User.belongsTo(Customer, fk('customer', 'customerRecord'));
  User.belongsTo(SalesPerson, fk('salesPerson', 'salesPersonRecord'));
  User.belongsTo(StoredFile, fk('doctorDeaLicenseFile', 'deaLicense'));
  User.hasMany(Session, many('userId', 'sessions', 'id'));
  User.hasOne(ApiKey, many('userId', 'apiKeyRecord', 'id'));
  Session.belongsTo(User, fk('userId', 'user', 'id'));
  ApiKey.belongsTo(User, fk('userId', 'user', 'id'));
  Outbox.hasMany(OutboxAttempt, many('outboxId', 'attemptLog', 'id'));
  OutboxAttempt.belongsTo(Outbox, fk('outboxId', 'outbox', 'id'));
}

function associateVendors(): void {
  VendorProfile.belongsTo(User, fk('userId', 'user', 'id'));
  VendorProfile.hasMany(Item, many('vendor', 'items'));
  VendorProfile.hasMany(Warehouse, many('vendor', 'warehouses'));
  StockUpdateRequest.belongsTo(VendorProfile, fk('vendor', 'vendorProfile'));
  StockUpdateRequest.belongsTo(Item, fk('itemCode', 'item', 'itemCode'));
  StockUpdateRequest.belongsTo(Warehouse, fk('warehouse', 'warehouseRecord'));
}

function associateOrders(): void {
  SalesOrder.belongsTo(Customer, fk('customer', 'customerRecord'));
  SalesOrder.belongsTo(PriceList, fk('priceList', 'priceListRecord'));
  SalesOrder.belongsTo(Address, fk('shippingAddressName', 'shippingAddress'));
  SalesOrder.belongsTo(User, fk('ownerUser', 'owner', 'id'));
  SalesOrder.belongsTo(SalesPerson, fk('createdBySalesPerson', 'creator'));
  SalesOrder.hasMany(SalesOrderItem, many('parent', 'items'));
  SalesOrder.hasMany(Shipment, many('salesOrder', 'shipments'));
  SalesOrderItem.belongsTo(SalesOrder, fk('parent', 'order'));
  SalesOrderItem.belongsTo(Item, fk('itemCode', 'item', 'itemCode'));
  SalesOrderItem.belongsTo(Warehouse, fk('warehouse', 'warehouseRecord'));
  SalesOrderItem.belongsTo(VendorProfile, fk('vendor', 'vendorProfile'));
  Shipment.belongsTo(SalesOrder, fk('salesOrder', 'order'));
  Shipment.belongsTo(VendorProfile, fk('vendor', 'vendorProfile'));
  Shipment.hasMany(ShipmentLot, many('shipmentId', 'lots', 'id'));
  ShipmentLot.belongsTo(Shipment, fk('shipmentId', 'shipment', 'id'));
  ShipmentLot.belongsTo(Item, fk('itemCode', 'item', 'itemCode'));
  ShipmentNotice.belongsTo(SalesOrder, fk('salesOrder', 'order'));
  VendorOrder.belongsTo(SalesOrder, fk('salesOrder', 'order'));
}

function associatePartners(): void {
  PartnerOrder.belongsTo(SalesOrder, fk('salesOrder', 'order'));
  PartnerOrder.hasMany(PartnerCall, many('partnerOrderId', 'calls', 'id'));
  PartnerFollowUp.belongsTo(PartnerOrder, fk('partnerOrderId', 'partnerOrder', 'id'));
  PartnerCall.belongsTo(PartnerOrder, fk('partnerOrderId', 'partnerOrder', 'id'));
}
