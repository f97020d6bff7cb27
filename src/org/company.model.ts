/** A legal entity owning warehouses (table companies; owner: org). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class Company extends Model<InferAttributes<Company>, InferCreationAttributes<Company>> {
  declare name: string;
  declare abbr: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  /** Binds the model to the process's Sequelize (src/models.ts calls it once per instance). */
  static initModel(sequelize: Sequelize): void {
    Company.init(
      {
        name: { type: DataTypes.TEXT, primaryKey: true },
        abbr: { type: DataTypes.TEXT },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
        updatedAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'companies', underscored: true, timestamps: true },
    );
  }
}
