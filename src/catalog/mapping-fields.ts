/**
 * The mapping fields, in precedence order: when several are set, the first one set wins
 * (docs/decisions.md). Without imports, so the CLI can build its options without loading the catalog.
 */
export const MAPPING_FIELDS = [
  { field: 'rxpartner_drug_description', attribute: 'rxpartnerDrugDescription', partner: 'rxpartner' },
  { field: 'peptide_partner_product_id', attribute: 'peptidePartnerProductId', partner: 'peptidepartner' },
  { field: 'otc_sku', attribute: 'otcSku', partner: 'otcpartner' },
  { field: 'store_variant_id', attribute: 'storeVariantId', partner: 'storepartner' },
  { field: 'shipper_product_id', attribute: 'shipperProductId', partner: 'shipper' },
] as const;

export type MappingField = (typeof MAPPING_FIELDS)[number]['field'];
