/**
 * The partner's id of a customer's patient (rxpartner's patientId), so a patient is created at the
 * partner once per customer (table customer_partner_patients; owner: org). `patientKey` is an opaque
 * HMAC of the patient's identity, never patient data; '' stands for the Customer itself (issue 13's
 * ensure_patient).
 */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export const PARTNER_PATIENT_STATUSES = ['pending', 'active', 'failed'] as const;
export type PartnerPatientStatus = (typeof PARTNER_PATIENT_STATUSES)[number];

export class CustomerPartnerPatient extends Model<InferAttributes<CustomerPartnerPatient>, InferCreationAttributes<CustomerPartnerPatient>> {
  declare customer: string;
  declare partner: string;
  declare patientKey: string;
  declare partnerPatientId: string;
  declare status: PartnerPatientStatus;
  /** why a creation failed, in the partner's words (no patient data) */
  declare detail: CreationOptional<string | null>;
  /** the order whose sending created (or last re-created) the patient at the partner */
  declare salesOrder: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    CustomerPartnerPatient.init(
      {
        customer: { type: DataTypes.TEXT, primaryKey: true },
        partner: { type: DataTypes.TEXT, primaryKey: true },
        patientKey: { type: DataTypes.TEXT, primaryKey: true },
        partnerPatientId: { type: DataTypes.TEXT, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false, validate: { isIn: [[...PARTNER_PATIENT_STATUSES]] } },
        detail: { type: DataTypes.TEXT },
        salesOrder: { type: DataTypes.TEXT },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
        updatedAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'customer_partner_patients', underscored: true, timestamps: true },
    );
  }
}
