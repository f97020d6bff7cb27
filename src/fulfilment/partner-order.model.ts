/**
 * The order one partner fulfils for one Sales Order: the lines routed to it, sent once with one
 * dedupe key, and what the partner reported since (table partner_orders; owner: fulfilment).
 */
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import type { PartnerLine } from './connector.js';

import { PARTNER_ORDER_STATUSES } from './partner-order-statuses.js';

export { PARTNER_ORDER_STATUSES };
export type PartnerOrderStatus = (typeof PARTNER_ORDER_STATUSES)[number];

/**
 * What became of a cancelled Sales Order at the partner: requested (queued to the partner), cancelled
 * (the partner cancelled it), not_sent (it never reached the partner), manual (the partner has no
 * cancel API or refused: cancel it there by hand).
 */
export const PARTNER_CANCELLATIONS = ['requested', 'cancelled', 'not_sent', 'manual'] as const;
export type PartnerCancellation = (typeof PARTNER_CANCELLATIONS)[number];

export class PartnerOrder extends Model<InferAttributes<PartnerOrder>, InferCreationAttributes<PartnerOrder>> {
  declare id: CreationOptional<number>;
  declare salesOrder: string;
  declare partner: string;
  declare dedupeKey: string;
  /** ours: pending → created, or retrying / awaiting_configuration / failed on the way */
  declare status: CreationOptional<PartnerOrderStatus>;
  /** the partner's id of the order */
  declare partnerReference: CreationOptional<string | null>;
  /** the partner's status, in the spec's words (e.g. otc Shipped), moved forward only */
  declare partnerStatus: CreationOptional<string | null>;
  declare trackingNumber: CreationOptional<string | null>;
  declare carrier: CreationOptional<string | null>;
  declare trackingUrl: CreationOptional<string | null>;
  declare lines: PartnerLine[];
  declare attempts: CreationOptional<number>;
  declare lastError: CreationOptional<string | null>;
  /** the outbox row that sends it (re-driven by `svc partner retry`) */
  declare outboxId: CreationOptional<number | null>;
  /** what operations must do by hand, as a partner event asked (rxpartner PATIENT_CREATION_FAILURE); no patient data */
  declare followUp: CreationOptional<string | null>;
  declare sentAt: CreationOptional<Date | null>;
  declare shippedAt: CreationOptional<Date | null>;
  /** when the worker last asked the partner for its status (polled partners only) */
  declare polledAt: CreationOptional<Date | null>;
  /** the Sales Order was cancelled: what became of it at the partner (null: not cancelled) */
  declare cancellation: CreationOptional<PartnerCancellation | null>;
  /** the partner's answer, or what operations must do */
  declare cancellationDetail: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    PartnerOrder.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        salesOrder: { type: DataTypes.TEXT, allowNull: false },
        partner: { type: DataTypes.TEXT, allowNull: false },
        dedupeKey: { type: DataTypes.TEXT, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'pending', validate: { isIn: [[...PARTNER_ORDER_STATUSES]] } },
        partnerReference: { type: DataTypes.TEXT },
        partnerStatus: { type: DataTypes.TEXT },
        trackingNumber: { type: DataTypes.TEXT },
        carrier: { type: DataTypes.TEXT },
        trackingUrl: { type: DataTypes.TEXT },
        lines: { type: DataTypes.JSONB, allowNull: false },
        attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        lastError: { type: DataTypes.TEXT },
        outboxId: { type: DataTypes.BIGINT },
        followUp: { type: DataTypes.TEXT },
        sentAt: { type: DataTypes.DATE },
        shippedAt: { type: DataTypes.DATE },
        polledAt: { type: DataTypes.DATE },
        cancellation: { type: DataTypes.TEXT, validate: { isIn: [[...PARTNER_CANCELLATIONS]] } },
        cancellationDetail: { type: DataTypes.TEXT },
        // timestamps: named here for the typings; Sequelize sets them
        createdAt: { type: DataTypes.DATE, allowNull: false },
        updatedAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'partner_orders', underscored: true, timestamps: true },
    );
  }
}

/** A partner order's attributes as a plain row (the hot paths read it with a raw statement, not as a model instance). */
export type PartnerOrderData = InferAttributes<PartnerOrder>;
