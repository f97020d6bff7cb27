/** One stock movement of a bin, before and after (table stock_ledger_entries; owner: catalog; append-only). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class StockLedgerEntry extends Model<InferAttributes<StockLedgerEntry>, InferCreationAttributes<StockLedgerEntry>> {
  declare id: CreationOptional<number>;
  declare itemCode: string;
  declare warehouse: string;
  declare actualBefore: number;
  declare actualAfter: number;
  declare reservedBefore: number;
  declare reservedAfter: number;
  declare reason: string;
  declare voucherType: CreationOptional<string | null>;
  declare voucherNo: CreationOptional<string | null>;
  declare actorType: string;
  declare actorId: string;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    StockLedgerEntry.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        itemCode: { type: DataTypes.TEXT, allowNull: false },
        warehouse: { type: DataTypes.TEXT, allowNull: false },
        actualBefore: { type: DataTypes.DECIMAL(18, 3), allowNull: false },
        actualAfter: { type: DataTypes.DECIMAL(18, 3), allowNull: false },
        reservedBefore: { type: DataTypes.DECIMAL(18, 3), allowNull: false },
        reservedAfter: { type: DataTypes.DECIMAL(18, 3), allowNull: false },
        reason: { type: DataTypes.TEXT, allowNull: false },
        voucherType: { type: DataTypes.TEXT },
        voucherNo: { type: DataTypes.TEXT },
        actorType: { type: DataTypes.TEXT, allowNull: false },
        actorId: { type: DataTypes.TEXT, allowNull: false },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'stock_ledger_entries', underscored: true, timestamps: true, updatedAt: false },
    );
  }
}
