/** The storepartner simulator's GraphQL types: orders, their line items, fulfillments and fulfillment orders (store.schema.ts joins them). */
export const ORDERS_SDL = /* GraphQL */ `
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
`;
