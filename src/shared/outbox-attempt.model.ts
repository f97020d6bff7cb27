/** One attempt at an outbox row, successful or not (table outbox_attempts; owner: shared/outbox.ts). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class OutboxAttempt extends Model<InferAttributes<OutboxAttempt>, InferCreationAttributes<OutboxAttempt>> {
  declare id: CreationOptional<number>;
  declare outboxId: number;
  declare attempt: number;
  declare worker: CreationOptional<string | null>;
  declare startedAt: Date;
  declare finishedAt: CreationOptional<Date>;
  declare durationMs: CreationOptional<number | null>;
  declare ok: boolean;
  declare responseCode: CreationOptional<number | null>;
  declare error: CreationOptional<string | null>;
  declare responseExcerpt: CreationOptional<string | null>;

  static initModel(sequelize: Sequelize): void {
    OutboxAttempt.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        outboxId: { type: DataTypes.BIGINT, allowNull: false },
        attempt: { type: DataTypes.INTEGER, allowNull: false },
        worker: { type: DataTypes.TEXT },
        startedAt: { type: DataTypes.DATE, allowNull: false },
        finishedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
        durationMs: { type: DataTypes.INTEGER },
        ok: { type: DataTypes.BOOLEAN, allowNull: false },
        responseCode: { type: DataTypes.INTEGER },
        error: { type: DataTypes.TEXT },
        responseExcerpt: { type: DataTypes.TEXT },
      },
      { sequelize, tableName: 'outbox_attempts', underscored: true, timestamps: false },
    );
  }
}
