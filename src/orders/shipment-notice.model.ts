/** A parcel the customer was mailed about, one row per (order, tracking number) (table shipment_notices; owner: orders). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class ShipmentNotice extends Model<InferAttributes<ShipmentNotice>, InferCreationAttributes<ShipmentNotice>> {
  declare salesOrder: string;
  declare trackingNumber: string;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    ShipmentNotice.init(
      {
        salesOrder: { type: DataTypes.TEXT, allowNull: false, primaryKey: true },
        trackingNumber: { type: DataTypes.TEXT, allowNull: false, primaryKey: true },
        createdAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'shipment_notices', underscored: true, timestamps: true, updatedAt: false },
    );
  }
}
