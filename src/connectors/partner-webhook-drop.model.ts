/** Partner webhooks dropped unread, counted per partner and reason (table partner_webhook_drops; owner: connectors; issue 24). */
import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class PartnerWebhookDrop extends Model<InferAttributes<PartnerWebhookDrop>, InferCreationAttributes<PartnerWebhookDrop>> {
  declare partner: string;
  /** e.g. pending_cap: the partner account's resource reads waiting were at the cap */
  declare reason: string;
  declare count: number;
  declare lastAt: Date;

  static initModel(sequelize: Sequelize): void {
    PartnerWebhookDrop.init(
      {
        partner: { type: DataTypes.TEXT, primaryKey: true },
        reason: { type: DataTypes.TEXT, primaryKey: true },
        count: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
        lastAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'partner_webhook_drops', underscored: true, timestamps: false },
    );
  }
}
