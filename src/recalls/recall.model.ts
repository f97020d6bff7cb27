/** A recall of an item's lots, serial numbers, expiry range or all lots (table recalls; owner: recalls). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

import type { RecallClass } from './recall-terms.js';

export { RECALL_CLASSES, RECALL_STATUS, type RecallClass } from './recall-terms.js';

export class Recall extends Model<InferAttributes<Recall>, InferCreationAttributes<Recall>> {
  declare name: string;
  declare itemCode: string;
  declare vendor: CreationOptional<string | null>;
  declare lotNumbers: CreationOptional<string[]>;
  declare serialNumbers: CreationOptional<string[]>;
  declare expiryFrom: CreationOptional<string | null>;
  declare expiryTo: CreationOptional<string | null>;
  declare allLots: CreationOptional<boolean>;
  declare classification: RecallClass;
  declare reason: string;
  declare instructions: string;
  declare status: string;
  declare createdBy: string;
  declare approvedBy: CreationOptional<string | null>;
  declare approvedAt: CreationOptional<Date | null>;
  declare closedBy: CreationOptional<string | null>;
  declare closedAt: CreationOptional<Date | null>;
  declare closeReason: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Recall.init(
      {
        name: { type: DataTypes.TEXT, primaryKey: true },
        itemCode: { type: DataTypes.TEXT, allowNull: false },
        vendor: { type: DataTypes.TEXT },
        lotNumbers: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false, defaultValue: [] },
        serialNumbers: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false, defaultValue: [] },
        expiryFrom: { type: DataTypes.DATEONLY },
        expiryTo: { type: DataTypes.DATEONLY },
        allLots: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        classification: { type: DataTypes.TEXT, allowNull: false },
        reason: { type: DataTypes.TEXT, allowNull: false },
        instructions: { type: DataTypes.TEXT, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false },
        createdBy: { type: DataTypes.TEXT, allowNull: false },
        approvedBy: { type: DataTypes.TEXT },
        approvedAt: { type: DataTypes.DATE },
        closedBy: { type: DataTypes.TEXT },
        closedAt: { type: DataTypes.DATE },
        closeReason: { type: DataTypes.TEXT },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
        updatedAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'recalls', underscored: true, timestamps: true },
    );
  }
}
