/**
 * The part of Shopify's Admin GraphQL API (version 2026-04) the storepartner simulator serves:
 * the operations of partners.md section 2 and the types they touch. Anything else gets GraphQL's
 * own validation error (e.g. "Cannot query field …"), as an unknown field does at Shopify.
 */
import { buildSchema } from 'graphql';

export const STORE_SDL = /* GraphQL */ `
  directive @idempotent(key: String!) on FIELD

  scalar DateTime
  scalar Money
  scalar URL

  type PageInfo {
    hasNextPage: Boolean!
    hasPreviousPage: Boolean!
    startCursor: String
    endCursor: String
  }

  type Shop {
    id: ID!
    name: String!
    myshopifyDomain: String!
  }
  type Location {
    id: ID!
    name: String!
  }

  type InventoryQuantity {
    name: String!
    quantity: Int!
  }
  type InventoryLevel {
    id: ID!
    location: Location!
    quantities(names: [String!]!): [InventoryQuantity!]!
  }
  type InventoryLevelEdge {
    cursor: String!
    node: InventoryLevel!
  }
  type InventoryLevelConnection {
    nodes: [InventoryLevel!]!
    edges: [InventoryLevelEdge!]!
    pageInfo: PageInfo!
  }
  type InventoryItem {
    id: ID!
    sku: String
    tracked: Boolean!
    inventoryLevels(first: Int, after: String): InventoryLevelConnection!
  }

  type ProductVariant {
    id: ID!
    title: String!
    sku: String
    price: Money!
    inventoryQuantity: Int
    inventoryItem: InventoryItem!
    product: Product!
  }
  type ProductVariantEdge {
    cursor: String!
    node: ProductVariant!
  }
  type ProductVariantConnection {
    nodes: [ProductVariant!]!
    edges: [ProductVariantEdge!]!
    pageInfo: PageInfo!
  }
  enum ProductStatus {
    ACTIVE
    ARCHIVED
    DRAFT
  }
  type Product {
    id: ID!
    title: String!
    handle: String!
    status: ProductStatus!
    variants(first: Int, after: String): ProductVariantConnection!
  }
  type ProductEdge {
    cursor: String!
    node: Product!
  }
  type ProductConnection {
    nodes: [Product!]!
    edges: [ProductEdge!]!
    pageInfo: PageInfo!
  }

  type LineItem {
    id: ID!
    name: String!
    title: String!
    sku: String
    quantity: Int!
    variant: ProductVariant
  }
  type LineItemEdge {
    cursor: String!
    node: LineItem!
  }
  type LineItemConnection {
    nodes: [LineItem!]!
    edges: [LineItemEdge!]!
    pageInfo: PageInfo!
  }

  type FulfillmentTrackingInfo {
    company: String
    number: String
    url: URL
  }
  enum FulfillmentStatus {
    SUCCESS
    CANCELLED
    ERROR
    FAILURE
    OPEN
    PENDING
  }
  enum FulfillmentDisplayStatus {
    CONFIRMED
    IN_TRANSIT
    DELIVERED
    OUT_FOR_DELIVERY
    LABEL_PRINTED
    FULFILLED
    CANCELED
    FAILURE
  }
  type Fulfillment {
    id: ID!
    name: String!
    status: FulfillmentStatus!
    displayStatus: FulfillmentDisplayStatus
    createdAt: DateTime!
    trackingInfo(first: Int): [FulfillmentTrackingInfo!]!
  }

  type FulfillmentOrderLineItem {
    id: ID!
    totalQuantity: Int!
    remainingQuantity: Int!
    lineItem: LineItem!
  }
  type FulfillmentOrderLineItemEdge {
    cursor: String!
    node: FulfillmentOrderLineItem!
  }
  type FulfillmentOrderLineItemConnection {
    nodes: [FulfillmentOrderLineItem!]!
    edges: [FulfillmentOrderLineItemEdge!]!
    pageInfo: PageInfo!
  }
  enum FulfillmentOrderStatus {
    OPEN
    IN_PROGRESS
    CLOSED
    CANCELLED
    INCOMPLETE
    ON_HOLD
    SCHEDULED
  }
  type FulfillmentOrder {
    id: ID!
    status: FulfillmentOrderStatus!
    lineItems(first: Int, after: String): FulfillmentOrderLineItemConnection!
  }
  type FulfillmentOrderEdge {
    cursor: String!
    node: FulfillmentOrder!
  }
  type FulfillmentOrderConnection {
    nodes: [FulfillmentOrder!]!
    edges: [FulfillmentOrderEdge!]!
    pageInfo: PageInfo!
  }

  enum OrderDisplayFinancialStatus {
    PENDING
    AUTHORIZED
    PARTIALLY_PAID
    PAID
    PARTIALLY_REFUNDED
    REFUNDED
    VOIDED
    EXPIRED
  }
  enum OrderDisplayFulfillmentStatus {
    UNFULFILLED
    PARTIALLY_FULFILLED
    FULFILLED
    RESTOCKED
    PENDING_FULFILLMENT
    OPEN
    IN_PROGRESS
    ON_HOLD
    SCHEDULED
  }
  enum OrderCancelReason {
    CUSTOMER
    DECLINED
    FRAUD
    INVENTORY
    STAFF
    OTHER
  }
  type Order {
    id: ID!
    legacyResourceId: String!
    name: String!
    email: String
    note: String
    tags: [String!]!
    createdAt: DateTime!
    updatedAt: DateTime!
    cancelledAt: DateTime
    cancelReason: OrderCancelReason
    displayFinancialStatus: OrderDisplayFinancialStatus
    displayFulfillmentStatus: OrderDisplayFulfillmentStatus!
    lineItems(first: Int, after: String): LineItemConnection!
    fulfillments(first: Int): [Fulfillment!]!
    fulfillmentOrders(first: Int, after: String): FulfillmentOrderConnection!
  }
  type OrderEdge {
    cursor: String!
    node: Order!
  }
  type OrderConnection {
    nodes: [Order!]!
    edges: [OrderEdge!]!
    pageInfo: PageInfo!
  }

  type UserError {
    field: [String!]
    message: String!
    code: String
  }
  type InventoryChange {
    name: String!
    delta: Int!
    quantityAfterChange: Int
    item: InventoryItem
    location: Location
  }
  type InventoryAdjustmentGroup {
    id: ID!
    createdAt: DateTime!
    reason: String!
    changes: [InventoryChange!]!
  }

  type OrderCreatePayload {
    order: Order
    userErrors: [UserError!]!
  }
  type FulfillmentCreatePayload {
    fulfillment: Fulfillment
    userErrors: [UserError!]!
  }
  type FulfillmentTrackingInfoUpdatePayload {
    fulfillment: Fulfillment
    userErrors: [UserError!]!
  }
  type Job {
    id: ID!
    done: Boolean!
  }
  enum OrderCancelUserErrorCode {
    INVALID
    NOT_FOUND
    NO_REFUND_PERMISSION
  }
  type OrderCancelUserError {
    field: [String!]
    message: String!
    code: OrderCancelUserErrorCode
  }
  type OrderCancelPayload {
    job: Job
    orderCancelUserErrors: [OrderCancelUserError!]!
    userErrors: [UserError!]!
  }
  input OrderCancelRefundMethodInput {
    originalPaymentMethodsRefund: Boolean
  }
  type InventorySetQuantitiesPayload {
    inventoryAdjustmentGroup: InventoryAdjustmentGroup
    userErrors: [UserError!]!
  }

  input MailingAddressInput {
    firstName: String
    lastName: String
    company: String
    address1: String
    address2: String
    city: String
    province: String
    provinceCode: String
    country: String
    countryCode: String
    zip: String
    phone: String
  }
  input AttributeInput {
    key: String!
    value: String!
  }
  input OrderCreateLineItemInput {
    variantId: ID
    quantity: Int!
    title: String
    sku: String
    requiresShipping: Boolean
    taxable: Boolean
  }
  enum OrderCreateFinancialStatus {
    PENDING
    AUTHORIZED
    PARTIALLY_PAID
    PAID
    PARTIALLY_REFUNDED
    REFUNDED
    VOIDED
    EXPIRED
  }
  input OrderCreateOrderInput {
    lineItems: [OrderCreateLineItemInput!]
    email: String
    phone: String
    shippingAddress: MailingAddressInput
    billingAddress: MailingAddressInput
    financialStatus: OrderCreateFinancialStatus
    note: String
    tags: [String!]
    currency: String
    sourceName: String
    sourceIdentifier: String
    customAttributes: [AttributeInput!]
  }
  enum OrderCreateInputsInventoryBehavior {
    BYPASS
    DECREMENT_IGNORING_POLICY
    DECREMENT_OBEYING_POLICY
  }
  input OrderCreateOptionsInput {
    inventoryBehaviour: OrderCreateInputsInventoryBehavior
    sendReceipt: Boolean
    sendFulfillmentReceipt: Boolean
  }

  input FulfillmentOrderLineItemInput {
    id: ID!
    quantity: Int!
  }
  input FulfillmentOrderLineItemsInput {
    fulfillmentOrderId: ID!
    fulfillmentOrderLineItems: [FulfillmentOrderLineItemInput!]
  }
  input FulfillmentTrackingInput {
    company: String
    number: String
    url: URL
    numbers: [String!]
    urls: [URL!]
  }
  input FulfillmentInput {
    lineItemsByFulfillmentOrder: [FulfillmentOrderLineItemsInput!]!
    trackingInfo: FulfillmentTrackingInput
    notifyCustomer: Boolean
  }

  input InventoryQuantityInput {
    inventoryItemId: ID!
    locationId: ID!
    quantity: Int!
    changeFromQuantity: Int
  }
  input InventorySetQuantitiesInput {
    name: String!
    reason: String!
    referenceDocumentUri: String
    quantities: [InventoryQuantityInput!]!
  }

  enum BulkOperationStatus {
    CANCELED
    CANCELING
    COMPLETED
    CREATED
    EXPIRED
    FAILED
    RUNNING
  }
  enum BulkOperationType {
    QUERY
    MUTATION
  }
  type BulkOperation {
    id: ID!
    status: BulkOperationStatus!
    errorCode: String
    objectCount: String!
    rootObjectCount: String!
    fileSize: String
    url: URL
    partialDataUrl: URL
    createdAt: DateTime!
    completedAt: DateTime
    query: String!
    type: BulkOperationType!
  }
  type BulkOperationRunQueryPayload {
    bulkOperation: BulkOperation
    userErrors: [UserError!]!
  }

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

export const storeSchema = buildSchema(STORE_SDL);
