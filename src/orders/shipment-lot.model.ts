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
  // copied from the shipment and its order by a trigger on every write (migration 2026.12.01T02.10.00): what the trace shows of them
  declare salesOrder: CreationOptional<string>;
  declare customer: CreationOptional<string>;
  declare shippingAddressName: CreationOptional<string | null>;
  declare shippedAt: CreationOptional<Date>;
  declare source: CreationOptional<string>;
  declare sourceLabel: CreationOptional<string | null>;
  declare vendor: CreationOptional<string | null>;
  declare trackingNumber: CreationOptional<string>;
  declare carrier: CreationOptional<string | null>;

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
        salesOrder: { type: DataTypes.TEXT },
        customer: { type: DataTypes.TEXT },
        shippingAddressName: { type: DataTypes.TEXT },
        shippedAt: { type: DataTypes.DATE },
        source: { type: DataTypes.TEXT },
        sourceLabel: { type: DataTypes.TEXT },
        vendor: { type: DataTypes.TEXT },
        trackingNumber: { type: DataTypes.TEXT },
        carrier: { type: DataTypes.TEXT },
      },
      { sequelize, tableName: 'shipment_lots', underscored: true, timestamps: false },
    );
  }
}
