/**
 * Stock of one item in one warehouse (table bins; owner: catalog). available = actual - reserved,
 * never negative (a CHECK backs the guarded updates of stock.service.ts).
 */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class Bin extends Model<InferAttributes<Bin>, InferCreationAttributes<Bin>> {
  declare itemCode: string;
  declare warehouse: string;
  declare actualQty: CreationOptional<number>;
  declare reservedQty: CreationOptional<number>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Bin.init(
      {
        itemCode: { type: DataTypes.TEXT, primaryKey: true },
        warehouse: { type: DataTypes.TEXT, primaryKey: true },
        actualQty: { type: DataTypes.DECIMAL(18, 3), allowNull: false, defaultValue: 0, validate: { min: 0 } },
        reservedQty: { type: DataTypes.DECIMAL(18, 3), allowNull: false, defaultValue: 0, validate: { min: 0 } },
        // timestamps: named here for the typings; Sequelize sets them
        updatedAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'bins', underscored: true, timestamps: true, createdAt: false },
    );
  }
}
