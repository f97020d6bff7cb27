/** The documented results of the catalog methods (spec "Warehouse" and "Catalog item row"); read when the OpenAPI document is built. */
import Joi from 'joi';
import { messageOf } from '../shared/result-docs.js';

const warehouse = Joi.object({
  name: Joi.string().description('Warehouse identifier; used as `warehouse` in other calls'),
  warehouse_name: Joi.string().description('Display name'),
  company: Joi.string().description('Owning company'),
}).label('CatalogWarehouse');

const orderedWarehouse = Joi.object({
  name: Joi.string().description('Warehouse identifier'),
  label: Joi.string().description('Display label'),
}).label('OrderedWarehouse');

const catalogRow = Joi.object({
  item_code: Joi.string().description('Product SKU used on order lines'),
  item_name: Joi.string().description('Display name'),
  description: Joi.string().allow(null).description('May contain basic HTML'),
  stock_uom: Joi.string().description('Unit of measure, e.g. Box, Vial, Nos'),
  rate: Joi.number().allow(null).description('Price from the price list; null when the list has no price for the item (visible, not orderable)'),
  available_qty: Joi.number().description('Live stock; orders must not exceed it'),
  warehouse: Joi.string().description('Only in search results with no warehouse filter'),
}).label('CatalogItemRow');

export const warehousesResult = messageOf(Joi.array().items(warehouse).label('WarehouseList'), 'ListWarehousesResult');
export const orderedWarehousesResult = messageOf(
  Joi.array().items(orderedWarehouse).label('OrderedWarehouseList').description('Preferred first'),
  'ListWarehousesOrderedResult',
);
export const catalogRowsResult = messageOf(Joi.array().items(catalogRow).label('CatalogItemRows'), 'CatalogItemsResult');
