/** A sales territory, in a tree (table territories; owner: org). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class Territory extends Model<InferAttributes<Territory>, InferCreationAttributes<Territory>> {
  declare name: string;
  declare parentTerritory: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Territory.init(
      {
        name: { type: DataTypes.TEXT, primaryKey: true },
        parentTerritory: { type: DataTypes.TEXT },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
        updatedAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'territories', underscored: true, timestamps: true },
    );
  }
}
