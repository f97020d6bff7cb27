/**
 * One side effect waiting to happen (vendor webhook, e-mail, routing), written in the transaction of
 * the change that caused it (table outbox; owner: shared/outbox.ts, the only code that claims rows).
 */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export const OUTBOX_STATUSES = ['pending', 'running', 'done', 'failed'] as const;
export type OutboxStatus = (typeof OUTBOX_STATUSES)[number];

export class Outbox extends Model<InferAttributes<Outbox>, InferCreationAttributes<Outbox>> {
  declare id: CreationOptional<number>;
  declare deliveryId: CreationOptional<string>;
  declare kind: string;
  declare topic: CreationOptional<string | null>;
  declare target: CreationOptional<string | null>;
  declare payload: unknown;
  declare status: CreationOptional<OutboxStatus>;
  declare attempts: CreationOptional<number>;
  declare maxAttempts: CreationOptional<number>;
  declare nextAttemptAt: CreationOptional<Date>;
  declare lockedUntil: CreationOptional<Date | null>;
  declare lockedBy: CreationOptional<string | null>;
  declare lastError: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
  declare completedAt: CreationOptional<Date | null>;
  /** the W3C traceparent of the work that wrote the row (tracing on), continued by the worker's span */
  declare traceparent: CreationOptional<string | null>;

  static initModel(sequelize: Sequelize): void {
    Outbox.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        deliveryId: { type: DataTypes.UUID, allowNull: false, unique: true, defaultValue: DataTypes.UUIDV4 },
        kind: { type: DataTypes.TEXT, allowNull: false },
        topic: { type: DataTypes.TEXT },
        target: { type: DataTypes.TEXT },
        payload: { type: DataTypes.JSONB, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'pending', validate: { isIn: [[...OUTBOX_STATUSES]] } },
        attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        maxAttempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 3, validate: { min: 1 } },
        nextAttemptAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
        lockedUntil: { type: DataTypes.DATE },
        lockedBy: { type: DataTypes.TEXT },
        lastError: { type: DataTypes.TEXT },
        completedAt: { type: DataTypes.DATE },
        traceparent: { type: DataTypes.TEXT },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
        updatedAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'outbox', underscored: true, timestamps: true },
    );
  }
}
