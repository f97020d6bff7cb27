/** A login session: the hash of the sid cookie, its CSRF token and its expiry (table sessions; owner: auth). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class Session extends Model<InferAttributes<Session>, InferCreationAttributes<Session>> {
  declare idHash: string;
  declare userId: string;
  declare csrfToken: string;
  declare ip: CreationOptional<string | null>;
  declare userAgent: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare lastSeenAt: CreationOptional<Date>;
  declare expiresAt: Date;

  static initModel(sequelize: Sequelize): void {
    Session.init(
      {
        idHash: { type: DataTypes.TEXT, primaryKey: true },
        userId: { type: DataTypes.UUID, allowNull: false },
        csrfToken: { type: DataTypes.TEXT, allowNull: false },
        ip: { type: DataTypes.TEXT },
        userAgent: { type: DataTypes.TEXT },
        lastSeenAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
        expiresAt: { type: DataTypes.DATE, allowNull: false },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'sessions', underscored: true, timestamps: true, updatedAt: false },
    );
  }
}
