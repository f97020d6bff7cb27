/**
 * A private upload (prescription, DEA certificate), stored encrypted under its storage key (table
 * files; owner: files). Named StoredFile so it does not shadow the global File.
 */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class StoredFile extends Model<InferAttributes<StoredFile>, InferCreationAttributes<StoredFile>> {
  declare name: string;
  declare fileName: string;
  declare contentType: string;
  declare fileSize: number;
  declare contentHash: string;
  declare storageKey: string;
  declare isPrivate: CreationOptional<boolean>;
  declare folder: CreationOptional<string>;
  declare attachedToDoctype: CreationOptional<string | null>;
  declare attachedToName: CreationOptional<string | null>;
  declare attachedToField: CreationOptional<string | null>;
  declare ownerType: string;
  declare ownerId: string;
  declare ownerEmail: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    StoredFile.init(
      {
        name: { type: DataTypes.TEXT, primaryKey: true },
        fileName: { type: DataTypes.TEXT, allowNull: false },
        contentType: { type: DataTypes.TEXT, allowNull: false },
        fileSize: { type: DataTypes.INTEGER, allowNull: false, validate: { min: 0 } },
        contentHash: { type: DataTypes.TEXT, allowNull: false },
        storageKey: { type: DataTypes.TEXT, allowNull: false },
        isPrivate: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        folder: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'Home' },
        attachedToDoctype: { type: DataTypes.TEXT },
        attachedToName: { type: DataTypes.TEXT },
        attachedToField: { type: DataTypes.TEXT },
        ownerType: { type: DataTypes.TEXT, allowNull: false },
        ownerId: { type: DataTypes.TEXT, allowNull: false },
        ownerEmail: { type: DataTypes.TEXT },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
        updatedAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, modelName: 'File', tableName: 'files', underscored: true, timestamps: true },
    );
  }
}
