import type { QueryInterface } from 'sequelize';

// Issue 26 §6 (partners and clients as they really send):
// - partner_webhook_drops: verified deliveries with nothing usable in them are acknowledged and
//   counted per partner and topic (reason `unusable:<topic>`), with the last one's problem and its
//   shape (keys and value types, never values) for svc check.
// - customers: the Customer's patient demographics (names, date of birth, gender) for
//   svc.rxpartner.ensure_patient, each AES-256-GCM ciphertext (sales/customer-demographics.service.ts).
// - sales_orders.shipper_label_status: who made the shipper label (Created by svc, Made in ShipStation, Label failed).
const UP = `
ALTER TABLE partner_webhook_drops ADD COLUMN last_problem text, ADD COLUMN last_example text;
ALTER TABLE sales_orders ADD COLUMN shipper_label_status text;
ALTER TABLE customers ADD COLUMN patient_first_name text, ADD COLUMN patient_last_name text, ADD COLUMN patient_date_of_birth text, ADD COLUMN patient_gender text;
`;

const DOWN = `
ALTER TABLE sales_orders DROP COLUMN shipper_label_status;
ALTER TABLE customers DROP COLUMN patient_first_name, DROP COLUMN patient_last_name, DROP COLUMN patient_date_of_birth, DROP COLUMN patient_gender;
ALTER TABLE partner_webhook_drops DROP COLUMN last_problem, DROP COLUMN last_example;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
