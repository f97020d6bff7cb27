/** A nonce of a signed partner webhook seen lately; a delivery reusing it has no effect (table partner_webhook_nonces; owner: fulfilment). */
import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class PartnerWebhookNonce extends Model<InferAttributes<PartnerWebhookNonce>, InferCreationAttributes<PartnerWebhookNonce>> {
  declare partner: string;
  declare nonce: string;
  /** kept until then (housekeeping drops it afterwards) */
  declare expiresAt: Date;

  static initModel(sequelize: Sequelize): void {
    PartnerWebhookNonce.init(
      {
        partner: { type: DataTypes.TEXT, primaryKey: true },
        nonce: { type: DataTypes.TEXT, primaryKey: true },
        expiresAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'partner_webhook_nonces', underscored: true, timestamps: false },
    );
  }
}
