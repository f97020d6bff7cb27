/**
 * A password reset asked from the portal's login page (table password_resets; owner: integrations,
 * the portal's domain). Like an invitation, only the token's sha256 is kept; a token is spent once.
 */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class PasswordReset extends Model<InferAttributes<PasswordReset>, InferCreationAttributes<PasswordReset>> {
  declare tokenHash: string;
  declare userId: string;
  declare email: string;
  declare expiresAt: Date;
  declare usedAt: CreationOptional<Date | null>;
  declare requestedFrom: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    PasswordReset.init(
      {
        tokenHash: { type: DataTypes.TEXT, primaryKey: true },
        userId: { type: DataTypes.UUID, allowNull: false },
        email: { type: DataTypes.TEXT, allowNull: false },
        expiresAt: { type: DataTypes.DATE, allowNull: false },
        usedAt: { type: DataTypes.DATE },
        requestedFrom: { type: DataTypes.TEXT },
        createdAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'password_resets', underscored: true, timestamps: true, updatedAt: false },
    );
  }
}
