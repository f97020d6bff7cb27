/**
 * A customer's or vendor's own connection to a partner (table integration_connections; owner:
 * integrations): its shipper key pair or its storefront's access token, Cipher ciphertext of a JSON
 * object, never shown back; and the last catalog, inventory and orders syncs with their result.
 */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export type OwnerType = 'customer' | 'vendor';
export type IntegrationKey = 'shipper' | 'storefront';

export interface SyncRecord {
  at: string;
  ok: boolean;
  summary: string;
  counts?: Record<string, number>;
}

/** One webhook subscription at the partner (ShipStation's WebHookID and its event). */
export interface ConnectionWebhook {
  id: string;
  event: string;
}

export class IntegrationConnection extends Model<InferAttributes<IntegrationConnection>, InferCreationAttributes<IntegrationConnection>> {
  declare id: CreationOptional<number>;
  declare ownerType: OwnerType;
  declare owner: string;
  declare integration: IntegrationKey;
  declare status: 'connected' | 'disconnected';
  declare shopDomain: CreationOptional<string | null>;
  declare apiUrl: CreationOptional<string | null>;
  declare scope: CreationOptional<string | null>;
  declare secretEnc: CreationOptional<string | null>;
  declare connectedBy: CreationOptional<string | null>;
  declare connectedAt: CreationOptional<Date | null>;
  declare updatedAt: CreationOptional<Date>;
  declare lastCatalogSync: CreationOptional<SyncRecord | null>;
  declare lastInventorySync: CreationOptional<SyncRecord | null>;
  declare lastOrdersSync: CreationOptional<SyncRecord | null>;
  /** shipper: SHA-256 of the connection's webhook token (the token itself is only in the target URL and the sealed secret) */
  declare webhookTokenHash: CreationOptional<string | null>;
  /** shipper: the partner's webhook subscriptions made for this connection */
  declare webhooks: CreationOptional<ConnectionWebhook[] | null>;
  /** storefront: the newest order `updatedAt` the store reported; the next import reads orders updated since (less an overlap) */
  declare ordersCursor: CreationOptional<string | null>;
  /** storefront: the last tracking or cancellation sent back to the store (or why it waits) */
  declare lastStorePush: CreationOptional<SyncRecord | null>;

  static initModel(sequelize: Sequelize): void {
    IntegrationConnection.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        ownerType: { type: DataTypes.TEXT, allowNull: false },
        owner: { type: DataTypes.TEXT, allowNull: false },
        integration: { type: DataTypes.TEXT, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false },
        shopDomain: { type: DataTypes.TEXT },
        apiUrl: { type: DataTypes.TEXT },
        scope: { type: DataTypes.TEXT },
        secretEnc: { type: DataTypes.TEXT },
        connectedBy: { type: DataTypes.TEXT },
        connectedAt: { type: DataTypes.DATE },
        updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
        lastCatalogSync: { type: DataTypes.JSONB },
        lastInventorySync: { type: DataTypes.JSONB },
        lastOrdersSync: { type: DataTypes.JSONB },
        webhookTokenHash: { type: DataTypes.TEXT },
        webhooks: { type: DataTypes.JSONB },
        ordersCursor: { type: DataTypes.TEXT },
        lastStorePush: { type: DataTypes.JSONB },
      },
      { sequelize, tableName: 'integration_connections', underscored: true, timestamps: false },
    );
  }
}
