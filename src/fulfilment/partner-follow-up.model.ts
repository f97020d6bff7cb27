/**
 * What operations must follow up by hand about a partner (table partner_follow_ups; owner:
 * fulfilment, through follow-ups.service.ts): rxpartner's PATIENT_CREATION_FAILURE for an order's
 * patient or a Customer's own patient (ensure_patient). One open item per partner, kind, customer
 * and order. Ids and the service's own words only: never patient data.
 */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export const FOLLOW_UP_STATUSES = ['open', 'resolved'] as const;
export type FollowUpStatus = (typeof FOLLOW_UP_STATUSES)[number];

export class PartnerFollowUp extends Model<InferAttributes<PartnerFollowUp>, InferCreationAttributes<PartnerFollowUp>> {
  declare id: CreationOptional<number>;
  declare partner: string;
  /** e.g. patient_creation_failure */
  declare kind: string;
  declare customer: CreationOptional<string | null>;
  declare salesOrder: CreationOptional<string | null>;
  declare partnerOrderId: CreationOptional<number | null>;
  declare partnerPatientId: CreationOptional<string | null>;
  declare detail: string;
  declare status: CreationOptional<FollowUpStatus>;
  declare resolvedBy: CreationOptional<string | null>;
  declare resolvedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    PartnerFollowUp.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        partner: { type: DataTypes.TEXT, allowNull: false },
        kind: { type: DataTypes.TEXT, allowNull: false },
        customer: { type: DataTypes.TEXT },
        salesOrder: { type: DataTypes.TEXT },
        partnerOrderId: { type: DataTypes.BIGINT },
        partnerPatientId: { type: DataTypes.TEXT },
        detail: { type: DataTypes.TEXT, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'open', validate: { isIn: [[...FOLLOW_UP_STATUSES]] } },
        resolvedBy: { type: DataTypes.TEXT },
        resolvedAt: { type: DataTypes.DATE },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
        updatedAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'partner_follow_ups', underscored: true, timestamps: true },
    );
  }
}
