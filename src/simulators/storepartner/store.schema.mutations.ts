/** The storepartner simulator's GraphQL types: the payloads and inputs of the mutations, and bulk operations (store.schema.ts joins them). */
export const MUTATIONS_SDL = /* GraphQL */ `
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
`;
