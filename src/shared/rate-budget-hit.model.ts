/** One request counted in a sliding-window rate budget (table rate_budget_hits; owner: shared/rate-budget.ts). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class RateBudgetHit extends Model<InferAttributes<RateBudgetHit>, InferCreationAttributes<RateBudgetHit>> {
  declare id: CreationOptional<number>;
  declare bucket: string;
  declare takenAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    RateBudgetHit.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        bucket: { type: DataTypes.TEXT, allowNull: false },
        takenAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'rate_budget_hits', underscored: true, timestamps: false },
    );
  }
}
