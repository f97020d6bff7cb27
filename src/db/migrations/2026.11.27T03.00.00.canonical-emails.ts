import type { QueryInterface } from 'sequelize';

// Issue 24: an account's e-mail is stored and looked up in one canonical form (src/shared/email.ts:
// trimmed, printable ASCII, ASCII letters lower-cased). Existing addresses of printable ASCII take it
// here, folded with translate() rather than lower(), which folds by the database's locale. An address
// with other characters cannot be canonicalised the same way everywhere and is left as it is: no
// lookup finds it (docs/decisions.md, "One canonical e-mail address"). Lookups compare the column
// exactly, so it gets a unique index of its own (users_email_key on lower(email) stays).
const FOLD = (column: string) => `translate(btrim(${column}), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`;

const UP = `
UPDATE users SET email = ${FOLD('email')} WHERE btrim(email) ~ '^[!-~]+$' AND email <> ${FOLD('email')};
UPDATE vendor_profiles SET email = ${FOLD('email')} WHERE btrim(email) ~ '^[!-~]+$' AND email <> ${FOLD('email')};
CREATE UNIQUE INDEX users_email_canonical_key ON users (email);
`;

const DOWN = `
DROP INDEX users_email_canonical_key;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
