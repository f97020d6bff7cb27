/**
 * A partner event (webhook or poll), stored once per (partner, event key) as the neutral
 * PartnerEvent, then applied by the worker (table partner_events; owner: fulfilment).
 */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import type { PartnerEvent } from './connector.js';

export class PartnerEventRecord extends Model<InferAttributes<PartnerEventRecord>, InferCreationAttributes<PartnerEventRecord>> {
  declare id: CreationOptional<number>;
  declare partner: string;
  declare eventKey: string;
  declare reference: string;
  declare status: CreationOptional<string | null>;
  declare event: PartnerEvent;
  /** the Sales Order it was matched to, once applied */
  declare salesOrder: CreationOptional<string | null>;
  /** null until applied: applied | ignored: <why> | unmatched */
  declare outcome: CreationOptional<string | null>;
  declare receivedAt: CreationOptional<Date>;
  declare appliedAt: CreationOptional<Date | null>;

  static initModel(sequelize: Sequelize): void {
    PartnerEventRecord.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        partner: { type: DataTypes.TEXT, allowNull: false },
        eventKey: { type: DataTypes.TEXT, allowNull: false },
        reference: { type: DataTypes.TEXT, allowNull: false },
        status: { type: DataTypes.TEXT },
        event: { type: DataTypes.JSONB, allowNull: false },
        salesOrder: { type: DataTypes.TEXT },
        outcome: { type: DataTypes.TEXT },
        receivedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
        appliedAt: { type: DataTypes.DATE },
      },
      { sequelize, tableName: 'partner_events', underscored: true, timestamps: false },
    );
  }
}
