/**
 * A product (table items; owner: catalog). Vendors write theirs through v1 (the upsert lives in
 * catalog/items.service.ts); customers see only what passed review (scope `listed`).
 */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export const WORKFLOW_STATES = ['Pending', 'Approved', 'Rejected'] as const;
export type WorkflowState = (typeof WORKFLOW_STATES)[number];

export class Item extends Model<InferAttributes<Item>, InferCreationAttributes<Item>> {
  declare itemCode: string;
  declare itemName: string;
  declare description: CreationOptional<string | null>;
  declare stockUom: CreationOptional<string>;
  declare itemGroup: CreationOptional<string>;
  declare vendor: CreationOptional<string | null>;
  declare vendorSku: CreationOptional<string | null>;
  declare vendorProductId: CreationOptional<string | null>;
  declare image: CreationOptional<string | null>;
  declare standardRate: CreationOptional<number | null>;
  declare valuationRate: CreationOptional<number | null>;
  declare workflowState: CreationOptional<WorkflowState>;
  declare published: CreationOptional<boolean>;
  declare disabled: CreationOptional<boolean>;
  declare is503a: CreationOptional<boolean>;
  declare rejectionReason: CreationOptional<string | null>;
  declare rxAttributes: CreationOptional<Record<string, unknown> | null>;
  declare rxpartnerDrugDescription: CreationOptional<string | null>;
  declare shipperProductId: CreationOptional<string | null>;
  declare otcSku: CreationOptional<string | null>;
  declare peptidePartnerProductId: CreationOptional<string | null>;
  declare storeVariantId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Item.init(
      {
        itemCode: { type: DataTypes.TEXT, primaryKey: true },
        itemName: { type: DataTypes.TEXT, allowNull: false },
        description: { type: DataTypes.TEXT },
        stockUom: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'Nos' },
        itemGroup: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'Needs classification' },
        vendor: { type: DataTypes.TEXT },
        vendorSku: { type: DataTypes.TEXT },
        vendorProductId: { type: DataTypes.TEXT },
        image: { type: DataTypes.TEXT },
        standardRate: { type: DataTypes.DECIMAL(18, 4) },
        valuationRate: { type: DataTypes.DECIMAL(18, 4) },
        workflowState: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'Approved', validate: { isIn: [[...WORKFLOW_STATES]] } },
        published: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        disabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        is503a: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false, field: 'is_503a' },
        rejectionReason: { type: DataTypes.TEXT },
        rxAttributes: { type: DataTypes.JSONB },
        rxpartnerDrugDescription: { type: DataTypes.TEXT },
        shipperProductId: { type: DataTypes.TEXT },
        otcSku: { type: DataTypes.TEXT },
        peptidePartnerProductId: { type: DataTypes.TEXT },
        storeVariantId: { type: DataTypes.TEXT },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
        updatedAt: { type: DataTypes.DATE, allowNull: false },
      },
      {
        sequelize,
        tableName: 'items',
        underscored: true,
        timestamps: true,
        // what customers may see: reviewed, published and not disabled (catalog.service VISIBLE_ITEM)
        scopes: { listed: { where: { workflowState: 'Approved', published: true, disabled: false } } },
      },
    );
  }
}
