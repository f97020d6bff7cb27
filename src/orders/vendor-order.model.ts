/**
 * One row per (vendor, order) holding the order's docstatus and modified, for sync.orders paging
 * (table vendor_orders; owner: orders). Derived: triggers on sales_orders and sales_order_items keep
 * it in step in the same transaction; no code writes it.
 */
import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class VendorOrder extends Model<InferAttributes<VendorOrder>, InferCreationAttributes<VendorOrder>> {
  declare vendor: string;
  declare salesOrder: string;
  declare docstatus: number;
  declare modified: Date;

  static initModel(sequelize: Sequelize): void {
    VendorOrder.init(
      {
        vendor: { type: DataTypes.TEXT, primaryKey: true },
        salesOrder: { type: DataTypes.TEXT, primaryKey: true },
        docstatus: { type: DataTypes.SMALLINT, allowNull: false },
        modified: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'vendor_orders', underscored: true, timestamps: false },
    );
  }
}
