/** An item's rate in a price list, with an optional validity period (table item_prices; owner: catalog). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class ItemPrice extends Model<InferAttributes<ItemPrice>, InferCreationAttributes<ItemPrice>> {
  declare id: CreationOptional<number>;
  declare priceList: string;
  declare itemCode: string;
  declare rate: number;
  declare uom: CreationOptional<string | null>;
  declare currency: CreationOptional<string>;
  /** YYYY-MM-DD */
  declare validFrom: CreationOptional<string | null>;
  declare validUpto: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    ItemPrice.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        priceList: { type: DataTypes.TEXT, allowNull: false },
        itemCode: { type: DataTypes.TEXT, allowNull: false },
        rate: { type: DataTypes.DECIMAL(18, 4), allowNull: false, validate: { min: 0 } },
        uom: { type: DataTypes.TEXT },
        currency: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'USD' },
        validFrom: { type: DataTypes.DATEONLY },
        validUpto: { type: DataTypes.DATEONLY },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
        updatedAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'item_prices', underscored: true, timestamps: true },
    );
  }
}
