/** One call to or from a partner: what, how long, how it ended; never headers, bodies or secrets (table partner_calls; owner: fulfilment). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class PartnerCall extends Model<InferAttributes<PartnerCall>, InferCreationAttributes<PartnerCall>> {
  declare id: CreationOptional<number>;
  declare partner: string;
  declare direction: 'outbound' | 'inbound';
  declare method: string;
  /** method-less path naming the call, e.g. /api/receivers/orders/inbound (no query string) */
  declare endpoint: string;
  declare httpStatus: CreationOptional<number | null>;
  declare durationMs: CreationOptional<number | null>;
  /** ok | client_error | server_error | rate_limited | timeout | connection_error | refused | accepted | rejected */
  declare outcome: string;
  declare salesOrder: CreationOptional<string | null>;
  declare partnerOrderId: CreationOptional<number | null>;
  declare error: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    PartnerCall.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        partner: { type: DataTypes.TEXT, allowNull: false },
        direction: { type: DataTypes.TEXT, allowNull: false, validate: { isIn: [['outbound', 'inbound']] } },
        method: { type: DataTypes.TEXT, allowNull: false },
        endpoint: { type: DataTypes.TEXT, allowNull: false },
        httpStatus: { type: DataTypes.INTEGER },
        durationMs: { type: DataTypes.INTEGER },
        outcome: { type: DataTypes.TEXT, allowNull: false },
        salesOrder: { type: DataTypes.TEXT },
        partnerOrderId: { type: DataTypes.BIGINT },
        error: { type: DataTypes.TEXT },
        createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
      },
      { sequelize, tableName: 'partner_calls', underscored: true, timestamps: false },
    );
  }
}
