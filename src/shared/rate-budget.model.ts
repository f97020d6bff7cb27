/** A rate budget's state: a token bucket's level, and a hold every process honours (table rate_budgets; owner: shared/rate-budget.ts). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class RateBudget extends Model<InferAttributes<RateBudget>, InferCreationAttributes<RateBudget>> {
  declare bucket: string;
  /** units left at updated_at (token buckets; null for sliding windows) */
  declare tokens: CreationOptional<number | null>;
  declare updatedAt: CreationOptional<Date>;
  /** no request before this instant (the partner answered 429 with a reset time) */
  declare heldUntil: CreationOptional<Date | null>;
  /** the last wait handed to a refused taker: the next refused one is told one slot interval later */
  declare queueUntil: CreationOptional<Date | null>;

  static initModel(sequelize: Sequelize): void {
    RateBudget.init(
      {
        bucket: { type: DataTypes.TEXT, primaryKey: true },
        tokens: { type: DataTypes.DECIMAL(18, 6) },
        updatedAt: { type: DataTypes.DATE, allowNull: false },
        heldUntil: { type: DataTypes.DATE },
        queueUntil: { type: DataTypes.DATE },
      },
      { sequelize, tableName: 'rate_budgets', underscored: true, timestamps: false },
    );
  }
}
