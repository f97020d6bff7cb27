import type { QueryInterface } from 'sequelize';

// Issue 14 (sales benchmark): the by-day and by-month indexes of the rep aggregates go. Every read of
// these rows is by person (the primary keys) or by a board index (owner: sales/sales-sql.ts and the
// sales_board function), and the by-day index, which included orders and sales, made each credit's
// update of the day row a non-HOT update with two index entries to write, inside the window in which
// that row is locked until the submit commits.
const UP = `
DROP INDEX sales_rep_days_day_idx;
DROP INDEX sales_rep_months_month_idx;
`;

const DOWN = `
CREATE INDEX sales_rep_days_day_idx ON sales_rep_days (day, sales_person) INCLUDE (orders, sales);
CREATE INDEX sales_rep_months_month_idx ON sales_rep_months (month, sales_person) INCLUDE (orders, sales);
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
