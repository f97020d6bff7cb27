import type { QueryInterface } from 'sequelize';

// A recall's held orders are released by hand (svc.recalls.release_hold, svc recall release):
// - recall_lines.held_from: the status the recall's hold moved the order from (null on the lines of an
//   order another recall had already put On Hold), so a release puts the order back where it was;
// - released_at / released_by / release_reason: the release of the recall's hold on the order;
// - recall_lines (sales_order) over the held lines: an order's holds, read by a release and by the
//   fulfilment guard.
const UP = `
ALTER TABLE recall_lines ADD COLUMN held_from text, ADD COLUMN released_at timestamptz, ADD COLUMN released_by text, ADD COLUMN release_reason text;
UPDATE recall_lines SET held_from = 'To Deliver and Bill' WHERE kind = 'held';
CREATE INDEX recall_lines_held_order_idx ON recall_lines (sales_order) WHERE kind = 'held';
`;

const DOWN = `
DROP INDEX recall_lines_held_order_idx;
ALTER TABLE recall_lines DROP COLUMN release_reason, DROP COLUMN released_by, DROP COLUMN released_at, DROP COLUMN held_from;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
