/** A line of a Sales Order (table sales_order_items; owner: orders). `parent` is the order's name. */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class SalesOrderItem extends Model<InferAttributes<SalesOrderItem>, InferCreationAttributes<SalesOrderItem>> {
  declare id: CreationOptional<number>;
  declare parent: string;
  declare idx: number;
  declare itemCode: string;
  declare itemName: string;
  declare qty: number;
  declare uom: string;
  declare rate: number;
  declare amount: number;
  declare warehouse: string;
  declare vendor: CreationOptional<string | null>;
  declare reservedQty: CreationOptional<number>;
  declare deliveredQty: CreationOptional<number>;
  /** who fulfils the line, recorded at submit: a partner key, `vendor` (order.new) or `marketplace` */
  declare fulfilmentPartner: CreationOptional<string | null>;
  /** a partner line's progress: Queued, Awaiting configuration, Retrying, Sent, Failed */
  declare fulfilmentStatus: CreationOptional<string | null>;
  /** a shipment of the order carries a lot row of the line's item (kept by triggers on shipment_lots; the trace's "lot unknown" index) */
  declare lotRecorded: CreationOptional<boolean>;

  static initModel(sequelize: Sequelize): void {
    SalesOrderItem.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        parent: { type: DataTypes.TEXT, allowNull: false },
        idx: { type: DataTypes.INTEGER, allowNull: false },
        itemCode: { type: DataTypes.TEXT, allowNull: false },
        itemName: { type: DataTypes.TEXT, allowNull: false },
        qty: { type: DataTypes.DECIMAL(18, 3), allowNull: false },
        uom: { type: DataTypes.TEXT, allowNull: false },
        rate: { type: DataTypes.DECIMAL(18, 4), allowNull: false, validate: { min: 0 } },
        amount: { type: DataTypes.DECIMAL(18, 2), allowNull: false },
        warehouse: { type: DataTypes.TEXT, allowNull: false },
        vendor: { type: DataTypes.TEXT },
        reservedQty: { type: DataTypes.DECIMAL(18, 3), allowNull: false, defaultValue: 0 },
        deliveredQty: { type: DataTypes.DECIMAL(18, 3), allowNull: false, defaultValue: 0 },
        fulfilmentPartner: { type: DataTypes.TEXT },
        fulfilmentStatus: { type: DataTypes.TEXT },
        lotRecorded: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      },
      { sequelize, tableName: 'sales_order_items', underscored: true, timestamps: false },
    );
  }
}
