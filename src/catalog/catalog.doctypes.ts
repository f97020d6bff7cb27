/** Catalog records at /api/resource (read-only; writes go through the catalog and vendor services). */
import { registerDocType } from '../shared/doctype.js';
import { ItemPrice } from './item-price.model.js';
import { Item } from './item.model.js';
import { PriceList } from './price-list.model.js';
import { Warehouse } from './warehouse.model.js';

const stamps = { creation: 'createdAt', modified: 'updatedAt' };

registerDocType({
  name: 'Warehouse',
  model: Warehouse,
  fields: {
    name: 'name',
    warehouse_name: 'warehouseName',
    company: 'company',
    priority: 'priority',
    label: 'label',
    is_group: 'isGroup',
    disabled: 'disabled',
    ...stamps,
  },
  listFields: ['name', 'warehouse_name', 'company'],
  defaultOrder: [
    ['priority', 'ASC'],
    ['name', 'ASC'],
  ],
});

registerDocType({
  name: 'Price List',
  model: PriceList,
  fields: {
    name: 'name',
    price_list_name: 'name',
    currency: 'currency',
    selling: 'selling',
    enabled: 'enabled',
    valid_from: 'validFrom',
    valid_upto: 'validUpto',
    ...stamps,
  },
  defaultOrder: [['name', 'ASC']],
});

registerDocType({
  name: 'Item',
  model: Item,
  fields: {
    name: 'itemCode',
    item_code: 'itemCode',
    item_name: 'itemName',
    description: 'description',
    stock_uom: 'stockUom',
    item_group: 'itemGroup',
    vendor: 'vendor',
    image: 'image',
    workflow_state: 'workflowState',
    published: 'published',
    disabled: 'disabled',
    is_503a: 'is503a',
    standard_rate: 'standardRate',
    ...stamps,
  },
  listFields: ['name', 'item_name'],
  defaultOrder: [['itemCode', 'ASC']],
});

registerDocType({
  name: 'Item Price',
  model: ItemPrice,
  fields: {
    name: 'id',
    item_code: 'itemCode',
    price_list: 'priceList',
    price_list_rate: 'rate',
    rate: 'rate',
    uom: 'uom',
    currency: 'currency',
    valid_from: 'validFrom',
    valid_upto: 'validUpto',
    ...stamps,
  },
  listFields: ['name', 'item_code', 'price_list', 'price_list_rate'],
  defaultOrder: [
    ['itemCode', 'ASC'],
    ['priceList', 'ASC'],
  ],
});
