/**
 * What the orders domain lets other domains read of `sales_orders` inside one statement of theirs (a
 * recall's progress and held orders count only the orders still On Hold, for a whole page of recalls
 * at once): the published attributes. Everything else goes through the orders services
 * (docs/development/database.md).
 */
import { publish } from '../db/sql-names.js';
import { SalesOrder } from './sales-order.model.js';

export const salesOrderRead = publish(SalesOrder, ['name', 'status']);
