/**
 * An order of a customer's storefront and the Sales Order it became (table store_orders; owner:
 * integrations), or why it could not be imported.
 */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class StoreOrderImport extends Model<InferAttributes<StoreOrderImport>, InferCreationAttributes<StoreOrderImport>> {
  declare connectionId: number;
  declare orderId: string;
  declare orderName: CreationOptional<string | null>;
  declare salesOrder: CreationOptional<string | null>;
  declare status: 'imported' | 'refused';
  declare detail: CreationOptional<string | null>;
  declare updatedAt: CreationOptional<Date>;
  /** the Sales Order's tracking or cancellation sent back to the store (null: nothing to send yet) */
  declare pushStatus: CreationOptional<'pending' | 'fulfilled' | 'cancelled' | 'skipped' | 'failed' | null>;
  declare pushDetail: CreationOptional<string | null>;
  declare pushedAt: CreationOptional<Date | null>;

  static initModel(sequelize: Sequelize): void {
    StoreOrderImport.init(
      {
        connectionId: { type: DataTypes.BIGINT, primaryKey: true },
        orderId: { type: DataTypes.TEXT, primaryKey: true },
        orderName: { type: DataTypes.TEXT },
        salesOrder: { type: DataTypes.TEXT },
        status: { type: DataTypes.TEXT, allowNull: false },
        detail: { type: DataTypes.TEXT },
        updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
        pushStatus: { type: DataTypes.TEXT },
        pushDetail: { type: DataTypes.TEXT },
        pushedAt: { type: DataTypes.DATE },
      },
      { sequelize, tableName: 'store_orders', underscored: true, timestamps: false },
    );
  }
}
