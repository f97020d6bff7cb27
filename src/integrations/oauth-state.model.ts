/**
 * A storefront install in progress (table integration_oauth_states; owner: integrations): the hash
 * of the OAuth state, the hash of the session that started it, who installs which shop, when it
 * expires and when it was used (once).
 */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import type { OwnerType } from './integration-connection.model.js';

export class OAuthState extends Model<InferAttributes<OAuthState>, InferCreationAttributes<OAuthState>> {
  declare stateHash: string;
  declare sessionHash: string;
  declare ownerType: OwnerType;
  declare owner: string;
  declare shopDomain: string;
  declare createdBy: string;
  declare createdAt: CreationOptional<Date>;
  declare expiresAt: Date;
  declare usedAt: CreationOptional<Date | null>;

  static initModel(sequelize: Sequelize): void {
    OAuthState.init(
      {
        stateHash: { type: DataTypes.TEXT, primaryKey: true },
        sessionHash: { type: DataTypes.TEXT, allowNull: false },
        ownerType: { type: DataTypes.TEXT, allowNull: false },
        owner: { type: DataTypes.TEXT, allowNull: false },
        shopDomain: { type: DataTypes.TEXT, allowNull: false },
        createdBy: { type: DataTypes.TEXT, allowNull: false },
        createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
        expiresAt: { type: DataTypes.DATE, allowNull: false },
        usedAt: { type: DataTypes.DATE },
      },
      { sequelize, tableName: 'integration_oauth_states', underscored: true, timestamps: false },
    );
  }
}
