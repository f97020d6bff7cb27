/** One credential field of a partner, its value AES-256-GCM ciphertext (table partner_credentials; owner: fulfilment/credentials). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class PartnerCredential extends Model<InferAttributes<PartnerCredential>, InferCreationAttributes<PartnerCredential>> {
  declare partner: string;
  /** the spec's field name, e.g. otc_api_key */
  declare field: string;
  /** Cipher ciphertext (v1:iv:tag:data), never the value */
  declare valueEnc: string;
  /** masked by `show` */
  declare secret: boolean;
  declare updatedBy: CreationOptional<string | null>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    PartnerCredential.init(
      {
        partner: { type: DataTypes.TEXT, primaryKey: true },
        field: { type: DataTypes.TEXT, primaryKey: true },
        valueEnc: { type: DataTypes.TEXT, allowNull: false },
        secret: { type: DataTypes.BOOLEAN, allowNull: false },
        updatedBy: { type: DataTypes.TEXT },
        updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
      },
      { sequelize, tableName: 'partner_credentials', underscored: true, timestamps: false },
    );
  }
}
