/** A lot or the serial numbers of an item in a shipment (table shipment_lots; owner: orders). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class ShipmentLot extends Model<InferAttributes<ShipmentLot>, InferCreationAttributes<ShipmentLot>> {
  declare id: CreationOptional<number>;
  declare shipmentId: number;
  declare itemCode: string;
  declare qty: CreationOptional<number | null>;
  declare lotNumber: CreationOptional<string | null>;
  declare serialNumbers: CreationOptional<string[] | null>;
  declare expiryDate: CreationOptional<string | null>;

  static initModel(sequelize: Sequelize): void {
    ShipmentLot.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        shipmentId: { type: DataTypes.BIGINT, allowNull: false },
        itemCode: { type: DataTypes.TEXT, allowNull: false },
        qty: { type: DataTypes.DECIMAL(18, 3) },
        lotNumber: { type: DataTypes.TEXT },
        serialNumbers: { type: DataTypes.ARRAY(DataTypes.TEXT) },
        expiryDate: { type: DataTypes.DATEONLY },
      },
      { sequelize, tableName: 'shipment_lots', underscored: true, timestamps: false },
    );
  }
}
