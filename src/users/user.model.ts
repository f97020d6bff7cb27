/**
 * A person who signs in (table users; owner: users). Email is stored in its canonical form
 * (shared/email.ts) and unique; a doctor account carries its verified NPI and DEA number.
 */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import type { Role } from './roles.js';

export class User extends Model<InferAttributes<User>, InferCreationAttributes<User>> {
  declare id: CreationOptional<string>;
  declare email: string;
  declare fullName: CreationOptional<string>;
  declare passwordHash: CreationOptional<string | null>;
  declare roles: CreationOptional<Role[]>;
  declare enabled: CreationOptional<boolean>;
  declare customer: CreationOptional<string | null>;
  declare salesPerson: CreationOptional<string | null>;
  declare vendor: CreationOptional<string | null>;
  declare lastLoginAt: CreationOptional<Date | null>;
  declare doctorNpi: CreationOptional<string | null>;
  declare doctorDeaNumber: CreationOptional<string | null>;
  declare doctorDeaLicenseFile: CreationOptional<string | null>;
  declare doctorVerifiedAt: CreationOptional<Date | null>;
  declare doctorVerifiedBy: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    User.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        email: { type: DataTypes.TEXT, allowNull: false },
        fullName: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
        passwordHash: { type: DataTypes.TEXT },
        roles: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false, defaultValue: [] },
        enabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        customer: { type: DataTypes.TEXT },
        salesPerson: { type: DataTypes.TEXT },
        vendor: { type: DataTypes.TEXT },
        lastLoginAt: { type: DataTypes.DATE },
        doctorNpi: { type: DataTypes.TEXT },
        doctorDeaNumber: { type: DataTypes.TEXT },
        doctorDeaLicenseFile: { type: DataTypes.TEXT },
        doctorVerifiedAt: { type: DataTypes.DATE },
        doctorVerifiedBy: { type: DataTypes.TEXT },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
        updatedAt: { type: DataTypes.DATE, allowNull: false },
      },
      {
        sequelize,
        tableName: 'users',
        underscored: true,
        timestamps: true,
        // the password hash leaves the table only for the login check (scope withPassword)
        defaultScope: { attributes: { exclude: ['passwordHash'] } },
        scopes: { withPassword: { attributes: { include: ['passwordHash'] } } },
      },
    );
  }
}
