/** A unit of measure (table uoms; owner: catalog). */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class Uom extends Model<InferAttributes<Uom>, InferCreationAttributes<Uom>> {
  declare name: string;
  declare mustBeWholeNumber: CreationOptional<boolean>;

  static initModel(sequelize: Sequelize): void {
    Uom.init(
      {
        name: { type: DataTypes.TEXT, primaryKey: true },
        mustBeWholeNumber: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
      },
      { sequelize, tableName: 'uoms', underscored: true, timestamps: false },
    );
  }
}
