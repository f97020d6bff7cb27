/**
 * The part of Shopify's Admin GraphQL API (version 2026-04) the storepartner simulator serves:
 * the operations of partners.md section 2 and the types they touch. Anything else gets GraphQL's
 * own validation error (e.g. "Cannot query field …"), as an unknown field does at Shopify.
 */
import { buildSchema } from 'graphql';
import { CATALOG_SDL } from './store.schema.catalog.js';
import { MUTATIONS_SDL } from './store.schema.mutations.js';
import { ORDERS_SDL } from './store.schema.orders.js';

const ROOT_SDL = /* GraphQL */ `
  directive @idempotent(key: String!) on FIELD

  scalar DateTime
  scalar Money
  scalar URL

  type Query {
    currentBulkOperation(type: BulkOperationType): BulkOperation
    shop: Shop!
    order(id: ID!): Order
    orders(first: Int, after: String, query: String): OrderConnection!
    products(first: Int, after: String, query: String): ProductConnection!
    product(id: ID!): Product
    productVariant(id: ID!): ProductVariant
    inventoryItem(id: ID!): InventoryItem
    location(id: ID!): Location
  }

  type Mutation {
    bulkOperationRunQuery(query: String!, groupObjects: Boolean): BulkOperationRunQueryPayload
    orderCreate(order: OrderCreateOrderInput!, options: OrderCreateOptionsInput): OrderCreatePayload
    fulfillmentCreate(fulfillment: FulfillmentInput!, message: String): FulfillmentCreatePayload
    fulfillmentTrackingInfoUpdate(
      fulfillmentId: ID!
      trackingInfoInput: FulfillmentTrackingInput!
      notifyCustomer: Boolean
    ): FulfillmentTrackingInfoUpdatePayload
    inventorySetQuantities(input: InventorySetQuantitiesInput!): InventorySetQuantitiesPayload
    orderCancel(
      orderId: ID!
      reason: OrderCancelReason!
      refund: Boolean
      refundMethod: OrderCancelRefundMethodInput
      restock: Boolean!
      notifyCustomer: Boolean
      staffNote: String
    ): OrderCancelPayload
  }
`;

export const STORE_SDL = [ROOT_SDL, CATALOG_SDL, ORDERS_SDL, MUTATIONS_SDL].join('\n');

export const storeSchema = buildSchema(STORE_SDL);
