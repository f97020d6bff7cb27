/** A shipment of an order reported by a vendor or a partner, keyed (order, source, tracking number) (table shipments; owner: orders). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export const AWAITING_TRACKING = 'Awaiting tracking';

export class Shipment extends Model<InferAttributes<Shipment>, InferCreationAttributes<Shipment>> {
  declare id: CreationOptional<number>;
  declare salesOrder: string;
  /** vendor profile name or partner key */
  declare source: string;
  declare sourceLabel: string;
  declare vendor: CreationOptional<string | null>;
  declare trackingNumber: CreationOptional<string>;
  declare carrier: CreationOptional<string | null>;
  declare trackingUrl: CreationOptional<string | null>;
  /** the resolved stage (Pending, Dispatched, …, Delivered) */
  declare status: CreationOptional<string | null>;
  /** the status text as reported */
  declare statusText: CreationOptional<string | null>;
  declare estimatedDeliveryDate: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Shipment.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        salesOrder: { type: DataTypes.TEXT, allowNull: false },
        source: { type: DataTypes.TEXT, allowNull: false },
        sourceLabel: { type: DataTypes.TEXT, allowNull: false },
        vendor: { type: DataTypes.TEXT },
        trackingNumber: { type: DataTypes.TEXT, allowNull: false, defaultValue: AWAITING_TRACKING },
        carrier: { type: DataTypes.TEXT },
        trackingUrl: { type: DataTypes.TEXT },
        status: { type: DataTypes.TEXT },
        statusText: { type: DataTypes.TEXT },
        estimatedDeliveryDate: { type: DataTypes.DATEONLY },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
        updatedAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'shipments', underscored: true, timestamps: true },
    );
  }
}
