/**
 * A store variant as last synced (table store_variants; owner: integrations): the catalog item it
 * became and the digest of what it carried, so a re-run with no change writes nothing.
 */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class StoreVariant extends Model<InferAttributes<StoreVariant>, InferCreationAttributes<StoreVariant>> {
  declare connectionId: number;
  declare variantId: string;
  declare productId: string;
  declare itemCode: string;
  declare digest: string;
  declare available: CreationOptional<number | null>;
  declare syncedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    StoreVariant.init(
      {
        connectionId: { type: DataTypes.BIGINT, primaryKey: true },
        variantId: { type: DataTypes.TEXT, primaryKey: true },
        productId: { type: DataTypes.TEXT, allowNull: false },
        itemCode: { type: DataTypes.TEXT, allowNull: false },
        digest: { type: DataTypes.TEXT, allowNull: false },
        available: { type: DataTypes.INTEGER },
        syncedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
      },
      { sequelize, tableName: 'store_variants', underscored: true, timestamps: false },
    );
  }
}
