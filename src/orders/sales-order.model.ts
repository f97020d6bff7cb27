/**
 * A Sales Order header: draft (docstatus 0), submitted (1) or cancelled (2), with the 503A fields
 * (patient fields hold AES-256-GCM ciphertext) and the spec's partner fields (partner-columns.ts owns
 * them) (table sales_orders; owner: orders). `modified` is Frappe's last-change instant, kept apart from updated_at.
 */
import { PARTNER_ATTRIBUTES, type PartnerColumns } from './partner-columns.js';
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

const text = () => ({ type: DataTypes.TEXT });
const instant = () => ({ type: DataTypes.DATE });

type Opt<T> = CreationOptional<T | null>;

// the spec's partner fields, declared once in partner-columns.ts (docs/decisions.md "Partner fields on the Sales Order")
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface SalesOrder extends PartnerColumns {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class SalesOrder extends Model<InferAttributes<SalesOrder>, InferCreationAttributes<SalesOrder>> {
  declare name: string;
  declare customer: string;
  declare territory: Opt<string>;
  /** YYYY-MM-DD */
  declare transactionDate: string;
  declare deliveryDate: Opt<string>;
  declare priceList: string;
  declare currency: CreationOptional<string>;
  declare shippingAddressName: Opt<string>;
  declare shippingMethod: Opt<string>;
  declare docstatus: CreationOptional<0 | 1 | 2>;
  declare status: CreationOptional<string>;
  declare grandTotal: CreationOptional<number>;
  declare totalQty: CreationOptional<number>;
  declare is503a: CreationOptional<boolean>;
  declare ownerUser: Opt<string>;
  declare ownerEmail: Opt<string>;
  declare createdBySalesPerson: Opt<string>;
  declare submittedAt: Opt<Date>;
  declare cancelledAt: Opt<Date>;
  declare shippedAt: Opt<Date>;
  declare deliveredAt: Opt<Date>;
  declare modified: CreationOptional<Date>;
  declare checkoutNpiNumber: Opt<string>;
  declare checkoutDeaNumber: Opt<string>;
  declare checkoutDeaLicenseFile: Opt<string>;
  declare checkoutDoctorFirstName: Opt<string>;
  declare checkoutDoctorLastName: Opt<string>;
  declare checkoutDoctorEmail: Opt<string>;
  declare checkoutPatientFirstName: Opt<string>;
  declare checkoutPatientLastName: Opt<string>;
  declare checkoutPatientDob: Opt<string>;
  declare checkoutPatientGender: Opt<string>;
  declare checkoutPrescriptionFile: Opt<string>;
  declare professionalUseConfirmation: Opt<number>;
  declare complianceAgreementAccepted: Opt<number>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    SalesOrder.init(
      {
        name: { type: DataTypes.TEXT, primaryKey: true },
        customer: { type: DataTypes.TEXT, allowNull: false },
        territory: text(),
        transactionDate: { type: DataTypes.DATEONLY, allowNull: false },
        deliveryDate: { type: DataTypes.DATEONLY },
        priceList: { type: DataTypes.TEXT, allowNull: false },
        currency: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'USD' },
        shippingAddressName: text(),
        shippingMethod: text(),
        docstatus: { type: DataTypes.SMALLINT, allowNull: false, defaultValue: 0, validate: { isIn: [[0, 1, 2]] } },
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'Draft' },
        grandTotal: { type: DataTypes.DECIMAL(18, 2), allowNull: false, defaultValue: 0 },
        totalQty: { type: DataTypes.DECIMAL(18, 3), allowNull: false, defaultValue: 0 },
        is503a: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false, field: 'is_503a' },
        ownerUser: { type: DataTypes.UUID },
        ownerEmail: text(),
        createdBySalesPerson: text(),
        submittedAt: instant(),
        cancelledAt: instant(),
        shippedAt: instant(),
        deliveredAt: instant(),
        modified: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
        checkoutNpiNumber: text(),
        checkoutDeaNumber: text(),
        checkoutDeaLicenseFile: text(),
        checkoutDoctorFirstName: text(),
        checkoutDoctorLastName: text(),
        checkoutDoctorEmail: text(),
        checkoutPatientFirstName: text(),
        checkoutPatientLastName: text(),
        checkoutPatientDob: text(),
        checkoutPatientGender: text(),
        checkoutPrescriptionFile: text(),
        professionalUseConfirmation: { type: DataTypes.SMALLINT },
        complianceAgreementAccepted: { type: DataTypes.SMALLINT },
        ...PARTNER_ATTRIBUTES,
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
        updatedAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'sales_orders', underscored: true, timestamps: true },
    );
  }
}
