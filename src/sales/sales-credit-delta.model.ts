/**
 * A credit's or a cancel's change to a rep's figures, waiting to be folded into sales_rep_days,
 * sales_rep_months and sales_rep_streaks (table sales_credit_deltas; owner: sales; appended by the
 * order triggers, emptied by sales_fold_credits()).
 */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class SalesCreditDelta extends Model<InferAttributes<SalesCreditDelta>, InferCreationAttributes<SalesCreditDelta>> {
  declare id: CreationOptional<string>;
  declare salesPerson: string;
  /** US Eastern day of the credit, YYYY-MM-DD */
  declare day: string;
  /** +1 a credit, −1 a cancel */
  declare orders: number;
  declare amount: number;

  static initModel(sequelize: Sequelize): void {
    SalesCreditDelta.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        salesPerson: { type: DataTypes.TEXT, allowNull: false },
        day: { type: DataTypes.DATEONLY, allowNull: false },
        orders: { type: DataTypes.INTEGER, allowNull: false },
        amount: { type: DataTypes.DECIMAL(18, 2), allowNull: false },
      },
      { sequelize, tableName: 'sales_credit_deltas', underscored: true, timestamps: false },
    );
  }
}
