/** A sales rep or manager, in a team tree (table sales_persons; owner: org). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class SalesPerson extends Model<InferAttributes<SalesPerson>, InferCreationAttributes<SalesPerson>> {
  declare name: string;
  declare fullName: string;
  declare parentSalesPerson: CreationOptional<string | null>;
  declare isManager: CreationOptional<boolean>;
  declare territory: CreationOptional<string | null>;
  declare commissionRate: CreationOptional<number>;
  declare subrepPct: CreationOptional<number | null>;
  /** a key of config sales.plans; null: the default plan */
  declare commissionPlan: CreationOptional<string | null>;
  declare enabled: CreationOptional<boolean>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    SalesPerson.init(
      {
        name: { type: DataTypes.TEXT, primaryKey: true },
        fullName: { type: DataTypes.TEXT, allowNull: false },
        parentSalesPerson: { type: DataTypes.TEXT },
        isManager: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        territory: { type: DataTypes.TEXT },
        commissionRate: { type: DataTypes.DECIMAL(6, 3), allowNull: false, defaultValue: 0, validate: { min: 0, max: 100 } },
        subrepPct: { type: DataTypes.DECIMAL(6, 3), validate: { min: 0, max: 100 } },
        commissionPlan: { type: DataTypes.TEXT },
        enabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
        updatedAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'sales_persons', underscored: true, timestamps: true },
    );
  }
}
