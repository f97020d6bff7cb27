/**
 * The national provider registry's (NPPES) answer about one NPI, cached until `expiresAt` (table
 * npi_registry_entries; owner: orders, through npi-registry.service.ts). A provider's public
 * registry data only (name, type): no patient data.
 */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export const NPI_OUTCOMES = ['active', 'inactive', 'not_found'] as const;
export type NpiOutcome = (typeof NPI_OUTCOMES)[number];

export class NpiRegistryEntry extends Model<InferAttributes<NpiRegistryEntry>, InferCreationAttributes<NpiRegistryEntry>> {
  declare npi: string;
  declare outcome: NpiOutcome;
  declare providerName: CreationOptional<string | null>;
  declare enumerationType: CreationOptional<string | null>;
  declare checkedAt: CreationOptional<Date>;
  declare expiresAt: Date;

  static initModel(sequelize: Sequelize): void {
    NpiRegistryEntry.init(
      {
        npi: { type: DataTypes.TEXT, primaryKey: true },
        outcome: { type: DataTypes.TEXT, allowNull: false, validate: { isIn: [[...NPI_OUTCOMES]] } },
        providerName: { type: DataTypes.TEXT },
        enumerationType: { type: DataTypes.TEXT },
        checkedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
        expiresAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'npi_registry_entries', underscored: true, timestamps: false },
    );
  }
}
