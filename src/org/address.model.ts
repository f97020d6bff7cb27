/** A customer's shipping or billing address (table addresses; owner: org). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class Address extends Model<InferAttributes<Address>, InferCreationAttributes<Address>> {
  declare name: string;
  declare customer: string;
  declare addressTitle: string;
  declare addressLine1: string;
  declare addressLine2: CreationOptional<string | null>;
  declare city: string;
  declare state: CreationOptional<string | null>;
  declare pincode: CreationOptional<string | null>;
  declare country: CreationOptional<string>;
  declare phone: CreationOptional<string | null>;
  declare email: CreationOptional<string | null>;
  declare contactName: CreationOptional<string | null>;
  declare isShippingAddress: CreationOptional<boolean>;
  declare isPrimaryAddress: CreationOptional<boolean>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Address.init(
      {
        name: { type: DataTypes.TEXT, primaryKey: true },
        customer: { type: DataTypes.TEXT, allowNull: false },
        addressTitle: { type: DataTypes.TEXT, allowNull: false },
        addressLine1: { type: DataTypes.TEXT, allowNull: false, field: 'address_line1' },
        addressLine2: { type: DataTypes.TEXT, field: 'address_line2' },
        city: { type: DataTypes.TEXT, allowNull: false },
        state: { type: DataTypes.TEXT },
        pincode: { type: DataTypes.TEXT },
        country: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'United States' },
        phone: { type: DataTypes.TEXT },
        email: { type: DataTypes.TEXT },
        contactName: { type: DataTypes.TEXT },
        isShippingAddress: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        isPrimaryAddress: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
        updatedAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'addresses', underscored: true, timestamps: true },
    );
  }
}
