/** The stored outcome of one (vendor, route, Idempotency-Key) (table idempotency_keys; owner: vendor-api). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class IdempotencyKey extends Model<InferAttributes<IdempotencyKey>, InferCreationAttributes<IdempotencyKey>> {
  declare vendor: string;
  declare route: string;
  declare key: string;
  declare fingerprint: string;
  declare httpStatus: CreationOptional<number | null>;
  declare contentType: CreationOptional<string | null>;
  /** the answer's exact bytes (issue 10); `response` is read only for rows stored before it */
  declare responseBody: CreationOptional<Buffer | null>;
  declare response: CreationOptional<Record<string, unknown> | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    IdempotencyKey.init(
      {
        vendor: { type: DataTypes.TEXT, primaryKey: true },
        route: { type: DataTypes.TEXT, primaryKey: true },
        key: { type: DataTypes.TEXT, primaryKey: true },
        fingerprint: { type: DataTypes.TEXT, allowNull: false },
        httpStatus: { type: DataTypes.INTEGER },
        contentType: { type: DataTypes.TEXT },
        responseBody: { type: DataTypes.BLOB },
        response: { type: DataTypes.JSONB },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'idempotency_keys', underscored: true, timestamps: true, updatedAt: false },
    );
  }
}
