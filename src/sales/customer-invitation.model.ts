/** A customer login's one-time invitation (table customer_invitations; owner: sales). Only the token's sha256 is kept. */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class CustomerInvitation extends Model<InferAttributes<CustomerInvitation>, InferCreationAttributes<CustomerInvitation>> {
  declare tokenHash: string;
  declare userId: string;
  declare email: string;
  declare customer: string;
  declare invitedBy: string;
  declare expiresAt: Date;
  declare acceptedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    CustomerInvitation.init(
      {
        tokenHash: { type: DataTypes.TEXT, primaryKey: true },
        userId: { type: DataTypes.UUID, allowNull: false },
        email: { type: DataTypes.TEXT, allowNull: false },
        customer: { type: DataTypes.TEXT, allowNull: false },
        invitedBy: { type: DataTypes.TEXT, allowNull: false },
        expiresAt: { type: DataTypes.DATE, allowNull: false },
        acceptedAt: { type: DataTypes.DATE },
        createdAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'customer_invitations', underscored: true, timestamps: true, updatedAt: false },
    );
  }
}
