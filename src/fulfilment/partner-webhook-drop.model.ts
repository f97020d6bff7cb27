/**
 * Partner webhooks dropped unread, counted per partner and reason (table partner_webhook_drops; owner:
 * fulfilment): `pending_cap` (issue 24), and `unusable:<topic>` for verified deliveries acknowledged
 * without a usable order in them (issue 26).
 */
import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class PartnerWebhookDrop extends Model<InferAttributes<PartnerWebhookDrop>, InferCreationAttributes<PartnerWebhookDrop>> {
  declare partner: string;
  /** e.g. pending_cap: the partner account's resource reads waiting were at the cap */
  declare reason: string;
  declare count: number;
  declare lastAt: Date;
  /** unusable deliveries (issue 26): the last one's problem, and its shape (keys and value types, never values) */
  declare lastProblem: string | null;
  declare lastExample: string | null;

  static initModel(sequelize: Sequelize): void {
    PartnerWebhookDrop.init(
      {
        partner: { type: DataTypes.TEXT, primaryKey: true },
        reason: { type: DataTypes.TEXT, primaryKey: true },
        count: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
        lastAt: { type: DataTypes.DATE, allowNull: false },
        lastProblem: { type: DataTypes.TEXT },
        lastExample: { type: DataTypes.TEXT },
      },
      { sequelize, tableName: 'partner_webhook_drops', underscored: true, timestamps: false },
    );
  }
}
