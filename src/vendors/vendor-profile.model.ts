/**
 * A vendor on the marketplace: review state, API access, settings, webhook target and the v1 client
 * credentials (table vendor_profiles; owner: vendors). The default scope leaves the secrets out;
 * `withSecrets` is for the token issuer and verifier and the webhook sender only.
 */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export const VENDOR_STATUSES = ['Pending Approval', 'Approved', 'Rejected'] as const;
export const VENDOR_SCOPES = ['standard', '503A', '503B'] as const;
export type VendorStatus = (typeof VENDOR_STATUSES)[number];
export type VendorScope = (typeof VENDOR_SCOPES)[number];
const SECRETS = ['clientSecretHash', 'webhookSecretEnc'] as const;

export class VendorProfile extends Model<InferAttributes<VendorProfile>, InferCreationAttributes<VendorProfile>> {
  declare name: string;
  declare vendorName: string;
  declare userId: CreationOptional<string | null>;
  declare email: CreationOptional<string | null>;
  declare country: CreationOptional<string | null>;
  declare profileUrl: CreationOptional<string | null>;
  declare status: CreationOptional<VendorStatus>;
  declare suspended: CreationOptional<boolean>;
  declare apiEnabled: CreationOptional<boolean>;
  declare autoApprove: CreationOptional<boolean>;
  declare scope: CreationOptional<VendorScope>;
  declare webhookUrl: CreationOptional<string | null>;
  declare webhookSecretEnc: CreationOptional<string | null>;
  declare separateSkus: CreationOptional<boolean>;
  declare skuPrefix: CreationOptional<string | null>;
  declare clientId: CreationOptional<string | null>;
  declare clientSecretHash: CreationOptional<string | null>;
  declare secretVersion: CreationOptional<number>;
  declare approvedAt: CreationOptional<Date | null>;
  declare approvedBy: CreationOptional<string | null>;
  declare phone: CreationOptional<string | null>;
  declare details: CreationOptional<Record<string, unknown>>;
  declare credentialsGeneratedAt: CreationOptional<Date | null>;
  declare suspendedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    VendorProfile.init(
      {
        name: { type: DataTypes.TEXT, primaryKey: true },
        vendorName: { type: DataTypes.TEXT, allowNull: false },
        userId: { type: DataTypes.UUID },
        email: { type: DataTypes.TEXT },
        country: { type: DataTypes.TEXT },
        profileUrl: { type: DataTypes.TEXT },
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'Pending Approval', validate: { isIn: [[...VENDOR_STATUSES]] } },
        suspended: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        apiEnabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        autoApprove: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        scope: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'standard', validate: { isIn: [[...VENDOR_SCOPES]] } },
        webhookUrl: { type: DataTypes.TEXT },
        webhookSecretEnc: { type: DataTypes.TEXT },
        separateSkus: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        skuPrefix: { type: DataTypes.TEXT },
        clientId: { type: DataTypes.TEXT, unique: true },
        clientSecretHash: { type: DataTypes.TEXT },
        secretVersion: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        approvedAt: { type: DataTypes.DATE },
        approvedBy: { type: DataTypes.TEXT },
        phone: { type: DataTypes.TEXT },
        details: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        credentialsGeneratedAt: { type: DataTypes.DATE },
        suspendedAt: { type: DataTypes.DATE },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
        updatedAt: { type: DataTypes.DATE, allowNull: false },
      },
      {
        sequelize,
        tableName: 'vendor_profiles',
        underscored: true,
        timestamps: true,
        defaultScope: { attributes: { exclude: [...SECRETS] } },
        scopes: { withSecrets: {} },
      },
    );
  }
}
