/** A vendor's request to change the stock of one of its items, decided by an officer (table stock_update_requests; owner: vendors). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export const STOCK_REQUEST_ACTIONS = ['Add', 'Remove', 'Set'] as const;
export const STOCK_REQUEST_STATUSES = ['Requested', 'Approved', 'Rejected'] as const;

export class StockUpdateRequest extends Model<InferAttributes<StockUpdateRequest>, InferCreationAttributes<StockUpdateRequest>> {
  declare name: string;
  declare vendor: string;
  declare itemCode: string;
  declare action: (typeof STOCK_REQUEST_ACTIONS)[number];
  declare warehouse: string;
  declare quantity: number;
  declare reason: CreationOptional<string | null>;
  declare status: CreationOptional<(typeof STOCK_REQUEST_STATUSES)[number]>;
  declare requestedBy: string;
  declare decidedBy: CreationOptional<string | null>;
  declare decidedAt: CreationOptional<Date | null>;
  declare decisionReason: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    StockUpdateRequest.init(
      {
        name: { type: DataTypes.TEXT, primaryKey: true },
        vendor: { type: DataTypes.TEXT, allowNull: false },
        itemCode: { type: DataTypes.TEXT, allowNull: false },
        action: { type: DataTypes.TEXT, allowNull: false, validate: { isIn: [[...STOCK_REQUEST_ACTIONS]] } },
        warehouse: { type: DataTypes.TEXT, allowNull: false },
        quantity: { type: DataTypes.DECIMAL(18, 3), allowNull: false, validate: { min: 0 } },
        reason: { type: DataTypes.TEXT },
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'Requested', validate: { isIn: [[...STOCK_REQUEST_STATUSES]] } },
        requestedBy: { type: DataTypes.TEXT, allowNull: false },
        decidedBy: { type: DataTypes.TEXT },
        decidedAt: { type: DataTypes.DATE },
        decisionReason: { type: DataTypes.TEXT },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
        updatedAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'stock_update_requests', underscored: true, timestamps: true },
    );
  }
}
