/** A product group, in a tree (table item_groups; owner: catalog). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class ItemGroup extends Model<InferAttributes<ItemGroup>, InferCreationAttributes<ItemGroup>> {
  declare name: string;
  declare parentItemGroup: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    ItemGroup.init(
      {
        name: { type: DataTypes.TEXT, primaryKey: true },
        parentItemGroup: { type: DataTypes.TEXT },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'item_groups', underscored: true, timestamps: true, updatedAt: false },
    );
  }
}
