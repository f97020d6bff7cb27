/**
 * The commission plans the database last computed with (table sales_commission_plans; owner: sales;
 * one row): their digest, and the plans themselves for the record. Written at start-up when config's
 * plans differ (commission-sync.ts).
 */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class SalesCommissionPlans extends Model<InferAttributes<SalesCommissionPlans>, InferCreationAttributes<SalesCommissionPlans>> {
  declare id: CreationOptional<number>;
  declare digest: string;
  declare plans: unknown;
  declare syncedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    SalesCommissionPlans.init(
      {
        id: { type: DataTypes.SMALLINT, primaryKey: true, defaultValue: 1 },
        digest: { type: DataTypes.TEXT, allowNull: false },
        plans: { type: DataTypes.JSONB, allowNull: false },
        syncedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
      },
      { sequelize, tableName: 'sales_commission_plans', underscored: true, timestamps: false },
    );
  }
}
