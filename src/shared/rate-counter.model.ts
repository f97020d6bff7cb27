/** A counter of hits in a window, for limits and lockouts (table rate_counters; owner: shared/rate-limit.ts). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class RateCounter extends Model<InferAttributes<RateCounter>, InferCreationAttributes<RateCounter>> {
  declare bucket: string;
  /** `-infinity` for a window that starts at its first hit (lockouts) */
  declare windowStart: Date;
  declare count: CreationOptional<number>;
  declare expiresAt: Date;

  static initModel(sequelize: Sequelize): void {
    RateCounter.init(
      {
        bucket: { type: DataTypes.TEXT, primaryKey: true },
        windowStart: { type: DataTypes.DATE, primaryKey: true },
        count: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        expiresAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'rate_counters', underscored: true, timestamps: false },
    );
  }
}
