/** The credit of one submitted order to its customer's assigned rep (table sales_credits; owner: sales; kept by triggers). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class SalesCredit extends Model<InferAttributes<SalesCredit>, InferCreationAttributes<SalesCredit>> {
  declare salesOrder: string;
  declare salesPerson: string;
  /** US Eastern day of the submit, YYYY-MM-DD */
  declare day: string;
  declare amount: number;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    SalesCredit.init(
      {
        salesOrder: { type: DataTypes.TEXT, primaryKey: true },
        salesPerson: { type: DataTypes.TEXT, allowNull: false },
        day: { type: DataTypes.DATEONLY, allowNull: false },
        amount: { type: DataTypes.DECIMAL(18, 2), allowNull: false },
        createdAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'sales_credits', underscored: true, timestamps: true, updatedAt: false },
    );
  }
}
