/** One v1 call (inbound) or one webhook attempt (outbound) (table vendor_api_logs; owner: vendor-api). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export const LOG_DIRECTIONS = ['inbound', 'outbound'] as const;

export class VendorApiLog extends Model<InferAttributes<VendorApiLog>, InferCreationAttributes<VendorApiLog>> {
  declare id: CreationOptional<number>;
  declare vendor: CreationOptional<string | null>;
  declare direction: (typeof LOG_DIRECTIONS)[number];
  declare function: string;
  declare status: string;
  declare httpStatus: CreationOptional<number | null>;
  declare durationMs: CreationOptional<number | null>;
  declare idempotencyKey: CreationOptional<string | null>;
  declare requestId: CreationOptional<string | null>;
  declare deliveryId: CreationOptional<string | null>;
  declare attempt: CreationOptional<number | null>;
  declare excerpt: CreationOptional<string | null>;
  declare error: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    VendorApiLog.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        vendor: { type: DataTypes.TEXT },
        direction: { type: DataTypes.TEXT, allowNull: false, validate: { isIn: [[...LOG_DIRECTIONS]] } },
        function: { type: DataTypes.TEXT, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false },
        httpStatus: { type: DataTypes.INTEGER },
        durationMs: { type: DataTypes.INTEGER },
        idempotencyKey: { type: DataTypes.TEXT },
        requestId: { type: DataTypes.TEXT },
        deliveryId: { type: DataTypes.UUID },
        attempt: { type: DataTypes.INTEGER },
        excerpt: { type: DataTypes.TEXT },
        error: { type: DataTypes.TEXT },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'vendor_api_logs', underscored: true, timestamps: true, updatedAt: false },
    );
  }
}
