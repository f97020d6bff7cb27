/** A rep's credited orders and sales on one US Eastern day (table sales_rep_days; owner: sales; kept by triggers). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class SalesRepDay extends Model<InferAttributes<SalesRepDay>, InferCreationAttributes<SalesRepDay>> {
  declare salesPerson: string;
  declare day: string;
  declare orders: CreationOptional<number>;
  declare sales: CreationOptional<number>;

  static initModel(sequelize: Sequelize): void {
    SalesRepDay.init(
      {
        salesPerson: { type: DataTypes.TEXT, primaryKey: true },
        day: { type: DataTypes.DATEONLY, primaryKey: true },
        orders: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        sales: { type: DataTypes.DECIMAL(18, 2), allowNull: false, defaultValue: 0 },
      },
      { sequelize, tableName: 'sales_rep_days', underscored: true, timestamps: false },
    );
  }
}
