/** A rep's credited orders and sales in one US Eastern month (table sales_rep_months; owner: sales; kept by triggers). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class SalesRepMonth extends Model<InferAttributes<SalesRepMonth>, InferCreationAttributes<SalesRepMonth>> {
  declare salesPerson: string;
  /** first day of the month, YYYY-MM-DD */
  declare month: string;
  declare orders: CreationOptional<number>;
  declare sales: CreationOptional<number>;
  /** the own sales of everyone below the person this month (a manager's override is on them) */
  declare teamSales: CreationOptional<number>;
  /** Σ over its direct sub-reps of their sales × (100 − subrep_pct) (a rep's share of their base commission) */
  declare subrepWeighted: CreationOptional<number>;
  /** the month's commission estimate, computed by the SQL function sales_commission (a trigger keeps it) */
  declare commission: CreationOptional<number>;

  static initModel(sequelize: Sequelize): void {
    SalesRepMonth.init(
      {
        salesPerson: { type: DataTypes.TEXT, primaryKey: true },
        month: { type: DataTypes.DATEONLY, primaryKey: true },
        orders: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        sales: { type: DataTypes.DECIMAL(18, 2), allowNull: false, defaultValue: 0 },
        teamSales: { type: DataTypes.DECIMAL(18, 2), allowNull: false, defaultValue: 0 },
        subrepWeighted: { type: DataTypes.DECIMAL(24, 6), allowNull: false, defaultValue: 0 },
        commission: { type: DataTypes.DECIMAL(18, 2), allowNull: false, defaultValue: 0 },
      },
      { sequelize, tableName: 'sales_rep_months', underscored: true, timestamps: false },
    );
  }
}
