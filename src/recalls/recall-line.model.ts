/**
 * A line a recall affects (table recall_lines; owner: recalls): a shipped entry (kind `shipped`,
 * which the customer accounts for per line) or, for an all-lots recall, a submitted order's line not
 * shipped yet, held (kind `held`: the status the hold moved its order from, and the hold's release).
 */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class RecallLine extends Model<InferAttributes<RecallLine>, InferCreationAttributes<RecallLine>> {
  declare id: CreationOptional<number>;
  declare recall: string;
  declare kind: 'shipped' | 'held';
  declare salesOrder: string;
  declare customer: string;
  declare itemCode: string;
  declare shipmentLotId: CreationOptional<number | null>;
  declare lotNumber: CreationOptional<string | null>;
  declare serialNumbers: CreationOptional<string[] | null>;
  declare expiryDate: CreationOptional<string | null>;
  declare qty: CreationOptional<number>;
  declare qtyOnHand: CreationOptional<number | null>;
  declare qtyReturned: CreationOptional<number | null>;
  declare qtyDestroyed: CreationOptional<number | null>;
  declare acknowledgedAt: CreationOptional<Date | null>;
  declare acknowledgedBy: CreationOptional<string | null>;
  declare heldFrom: CreationOptional<string | null>;
  declare releasedAt: CreationOptional<Date | null>;
  declare releasedBy: CreationOptional<string | null>;
  declare releaseReason: CreationOptional<string | null>;

  static initModel(sequelize: Sequelize): void {
    RecallLine.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        recall: { type: DataTypes.TEXT, allowNull: false },
        kind: { type: DataTypes.TEXT, allowNull: false },
        salesOrder: { type: DataTypes.TEXT, allowNull: false },
        customer: { type: DataTypes.TEXT, allowNull: false },
        itemCode: { type: DataTypes.TEXT, allowNull: false },
        shipmentLotId: { type: DataTypes.BIGINT },
        lotNumber: { type: DataTypes.TEXT },
        serialNumbers: { type: DataTypes.ARRAY(DataTypes.TEXT) },
        expiryDate: { type: DataTypes.DATEONLY },
        qty: { type: DataTypes.DECIMAL(18, 3), allowNull: false, defaultValue: 0 },
        qtyOnHand: { type: DataTypes.DECIMAL(18, 3) },
        qtyReturned: { type: DataTypes.DECIMAL(18, 3) },
        qtyDestroyed: { type: DataTypes.DECIMAL(18, 3) },
        acknowledgedAt: { type: DataTypes.DATE },
        acknowledgedBy: { type: DataTypes.TEXT },
        heldFrom: { type: DataTypes.TEXT },
        releasedAt: { type: DataTypes.DATE },
        releasedBy: { type: DataTypes.TEXT },
        releaseReason: { type: DataTypes.TEXT },
      },
      { sequelize, tableName: 'recall_lines', underscored: true, timestamps: false },
    );
  }
}
