/** A rep's run of consecutive business days with a sale, ending at last_day (table sales_rep_streaks; owner: sales; kept by triggers). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class SalesRepStreak extends Model<InferAttributes<SalesRepStreak>, InferCreationAttributes<SalesRepStreak>> {
  declare salesPerson: string;
  declare streakDays: CreationOptional<number>;
  declare lastDay: CreationOptional<string | null>;

  static initModel(sequelize: Sequelize): void {
    SalesRepStreak.init(
      {
        salesPerson: { type: DataTypes.TEXT, primaryKey: true },
        streakDays: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        lastDay: { type: DataTypes.DATEONLY },
      },
      { sequelize, tableName: 'sales_rep_streaks', underscored: true, timestamps: false },
    );
  }
}
