/**
 * A stock location of a company; a vendor may own its own (table warehouses; owner: catalog, which
 * keeps stock per warehouse in bins).
 */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class Warehouse extends Model<InferAttributes<Warehouse>, InferCreationAttributes<Warehouse>> {
  declare name: string;
  declare warehouseName: string;
  declare company: string;
  declare priority: CreationOptional<number>;
  declare label: CreationOptional<string | null>;
  declare isGroup: CreationOptional<boolean>;
  declare disabled: CreationOptional<boolean>;
  declare vendor: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Warehouse.init(
      {
        name: { type: DataTypes.TEXT, primaryKey: true },
        warehouseName: { type: DataTypes.TEXT, allowNull: false },
        company: { type: DataTypes.TEXT, allowNull: false },
        priority: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 100 },
        label: { type: DataTypes.TEXT },
        isGroup: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        disabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        vendor: { type: DataTypes.TEXT },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
        updatedAt: { type: DataTypes.DATE, allowNull: false },
      },
      {
        sequelize,
        tableName: 'warehouses',
        underscored: true,
        timestamps: true,
        // where stock can be kept and sold from: enabled, not a group
        scopes: { usable: { where: { disabled: false, isGroup: false } } },
      },
    );
  }
}
