/** A user's API key and the peppered hash of its secret (table api_keys; owner: auth). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class ApiKey extends Model<InferAttributes<ApiKey>, InferCreationAttributes<ApiKey>> {
  declare userId: string;
  declare apiKey: string;
  declare secretHash: string;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    ApiKey.init(
      {
        userId: { type: DataTypes.UUID, primaryKey: true },
        apiKey: { type: DataTypes.TEXT, allowNull: false, unique: true },
        secretHash: { type: DataTypes.TEXT, allowNull: false },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
        updatedAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'api_keys', underscored: true, timestamps: true },
    );
  }
}
