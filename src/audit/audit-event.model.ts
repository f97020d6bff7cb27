/**
 * Who read or changed patient data or another sensitive record (table audit_events; owner: audit).
 * Append-only: a trigger refuses UPDATE, DELETE and TRUNCATE.
 */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class AuditEvent extends Model<InferAttributes<AuditEvent>, InferCreationAttributes<AuditEvent>> {
  declare id: CreationOptional<number>;
  declare actorType: string;
  declare actorId: string;
  declare actorRoles: CreationOptional<string[]>;
  declare action: string;
  declare objectType: string;
  declare objectName: string;
  /** names of the fields touched, never their values */
  declare fields: CreationOptional<string[]>;
  declare requestId: CreationOptional<string | null>;
  declare ip: CreationOptional<string | null>;
  declare detail: CreationOptional<Record<string, unknown> | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    AuditEvent.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        actorType: { type: DataTypes.TEXT, allowNull: false },
        actorId: { type: DataTypes.TEXT, allowNull: false },
        actorRoles: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false, defaultValue: [] },
        action: { type: DataTypes.TEXT, allowNull: false },
        objectType: { type: DataTypes.TEXT, allowNull: false },
        objectName: { type: DataTypes.TEXT, allowNull: false },
        fields: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false, defaultValue: [] },
        requestId: { type: DataTypes.TEXT },
        ip: { type: DataTypes.TEXT },
        detail: { type: DataTypes.JSONB },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'audit_events', underscored: true, timestamps: true, updatedAt: false },
    );
  }
}
