/** The storepartner simulator's GraphQL types: the shop, its locations and inventory, products and variants (store.schema.ts joins them). */
export const CATALOG_SDL = /* GraphQL */ `
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
`;
