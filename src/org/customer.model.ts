/** A clinic that orders (table customers; owner: org). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class Customer extends Model<InferAttributes<Customer>, InferCreationAttributes<Customer>> {
  declare name: string;
  declare customerName: string;
  declare customerType: CreationOptional<string>;
  declare territory: CreationOptional<string | null>;
  declare priceList: CreationOptional<string | null>;
  declare assignedRep: CreationOptional<string | null>;
  declare email: CreationOptional<string | null>;
  declare phone: CreationOptional<string | null>;
  declare disabled: CreationOptional<boolean>;
  /** the Customer's patient demographics (issue 26): ciphertext (runtime().cipher), see sales/customer-demographics.service.ts */
  declare patientFirstName: CreationOptional<string | null>;
  declare patientLastName: CreationOptional<string | null>;
  declare patientDateOfBirth: CreationOptional<string | null>;
  declare patientGender: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Customer.init(
      {
        name: { type: DataTypes.TEXT, primaryKey: true },
        customerName: { type: DataTypes.TEXT, allowNull: false },
        customerType: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'Company' },
        territory: { type: DataTypes.TEXT },
        priceList: { type: DataTypes.TEXT },
        assignedRep: { type: DataTypes.TEXT },
        email: { type: DataTypes.TEXT },
        phone: { type: DataTypes.TEXT },
        disabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        patientFirstName: { type: DataTypes.TEXT },
        patientLastName: { type: DataTypes.TEXT },
        patientDateOfBirth: { type: DataTypes.TEXT },
        patientGender: { type: DataTypes.TEXT },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
        updatedAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'customers', underscored: true, timestamps: true },
    );
  }
}
