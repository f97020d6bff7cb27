/** A selling price list; a contract list falls back to Standard Selling (table price_lists; owner: catalog). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class PriceList extends Model<InferAttributes<PriceList>, InferCreationAttributes<PriceList>> {
  declare name: string;
  declare currency: CreationOptional<string>;
  declare selling: CreationOptional<boolean>;
  declare enabled: CreationOptional<boolean>;
  declare isContract: CreationOptional<boolean>;
  /** YYYY-MM-DD */
  declare validFrom: CreationOptional<string | null>;
  declare validUpto: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    PriceList.init(
      {
        name: { type: DataTypes.TEXT, primaryKey: true },
        currency: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'USD' },
        selling: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        enabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        isContract: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        validFrom: { type: DataTypes.DATEONLY },
        validUpto: { type: DataTypes.DATEONLY },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
        updatedAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'price_lists', underscored: true, timestamps: true },
    );
  }
}
