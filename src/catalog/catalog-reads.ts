/**
 * What the catalog lets other domains read of `items` inside one statement of theirs (an order's
 * lines as sent to a vendor or a partner): the published attributes, the partners' mapping fields
 * included. Everything else goes through the catalog's services (docs/development/database.md).
 */
import { publish } from '../db/sql-names.js';
import { Item } from './item.model.js';
import { MAPPING_FIELDS } from './mapping-fields.js';

export const itemRead = publish(Item, ['itemCode', 'itemName', 'vendorProductId', 'vendorSku', ...MAPPING_FIELDS.map((m) => m.attribute)]);
