/**
 * The product mapping fields of the spec ("Product mapping"), columns of items, in precedence order:
 * when several are set, the first one set wins (docs/decisions.md). Which partner each one routes to
 * is the partner's spec (src/partners/<partner>/<partner>.spec.ts, mappingField); the route rule is
 * fulfilment's (src/fulfilment/route.ts). Without imports, so the CLI can build its options without
 * loading the catalog.
 */
export const MAPPING_FIELDS = [
  { field: 'rxpartner_drug_description', attribute: 'rxpartnerDrugDescription' },
  { field: 'peptide_partner_product_id', attribute: 'peptidePartnerProductId' },
  { field: 'otc_sku', attribute: 'otcSku' },
  { field: 'store_variant_id', attribute: 'storeVariantId' },
  { field: 'shipper_product_id', attribute: 'shipperProductId' },
] as const;

export type MappingField = (typeof MAPPING_FIELDS)[number]['field'];
