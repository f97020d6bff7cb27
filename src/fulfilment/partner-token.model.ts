/**
 * A partner's access token shared by every worker process (rxpartner's OAuth JWT): Cipher
 * ciphertext, its hash (a 401 drops it only while it is still the cached one) and its expiry
 * (table partner_tokens; owner: fulfilment, through token-cache.service.ts).
 */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class PartnerToken extends Model<InferAttributes<PartnerToken>, InferCreationAttributes<PartnerToken>> {
  /** the connector's key of the partner account (never a secret) */
  declare cacheKey: string;
  declare partner: string;
  declare tokenEnc: string;
  declare tokenHash: string;
  declare expiresAt: Date;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    PartnerToken.init(
      {
        cacheKey: { type: DataTypes.TEXT, primaryKey: true },
        partner: { type: DataTypes.TEXT, allowNull: false },
        tokenEnc: { type: DataTypes.TEXT, allowNull: false },
        tokenHash: { type: DataTypes.TEXT, allowNull: false },
        expiresAt: { type: DataTypes.DATE, allowNull: false },
        updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
      },
      { sequelize, tableName: 'partner_tokens', underscored: true, timestamps: false },
    );
  }
}
