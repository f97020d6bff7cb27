/** An affected customer of a recall: notified, reminded, acknowledged (table recall_customers; owner: recalls). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class RecallCustomer extends Model<InferAttributes<RecallCustomer>, InferCreationAttributes<RecallCustomer>> {
  declare recall: string;
  declare customer: string;
  declare notifiedAt: CreationOptional<Date | null>;
  declare remindedAt: CreationOptional<Date | null>;
  declare reminders: CreationOptional<number>;
  declare acknowledgedAt: CreationOptional<Date | null>;

  static initModel(sequelize: Sequelize): void {
    RecallCustomer.init(
      {
        recall: { type: DataTypes.TEXT, primaryKey: true },
        customer: { type: DataTypes.TEXT, primaryKey: true },
        notifiedAt: { type: DataTypes.DATE },
        remindedAt: { type: DataTypes.DATE },
        reminders: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        acknowledgedAt: { type: DataTypes.DATE },
      },
      { sequelize, tableName: 'recall_customers', underscored: true, timestamps: false },
    );
  }
}
