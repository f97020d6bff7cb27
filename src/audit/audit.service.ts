import type { Actor } from '../auth/actor.js';
import { execute, type Tx } from '../db/sequelize.js';
import { camel, columnsOf, once, sqlFor } from '../db/sql-names.js';
import { AuditEvent } from './audit-event.model.js';

/**
 * The audit trail (HIPAA 164.312(b)): who read or changed patient data or another sensitive record.
 * Rows are written in the caller's transaction so an audited change and its audit row commit together;
 * a read is audited in the same transaction as the SELECT that returned it. audit_events is append-only
 * (a trigger refuses UPDATE, DELETE and TRUNCATE). `fields` names the fields touched — never their values.
 */
export interface AuditEntry {
  /** read | create | update | delete | submit | cancel | download | upload | verify | ... */
  action: string;
  /** e.g. 'Sales Order', 'File', 'User' */
  object_type: string;
  object_name: string;
  /** names of the (sensitive) fields read or changed; never values */
  fields?: string[];
  /** extra non-sensitive context (no patient data, no secrets) */
  detail?: Record<string, unknown>;
}

/**
 * The INSERT of audit rows: auditValues bound from `$first` on; one row, or one for each row of
 * `from` where `when` holds; `objectName` an expression of `from` in place of the bound object name.
 * The one text behind recordAudit, recordAuditForEach and auditInsertSql.
 */
function insertAuditSql(first: number, rows: { from?: string; when?: string; objectName?: string } = {}): string {
  const p = (k: number) => `$${first + k}`;
  const source = rows.from ? ` FROM ${rows.from}${rows.when ? ` WHERE ${rows.when}` : ''}` : '';
  return sqlFor({ e: AuditEvent })(
    `INSERT INTO {@e} ({e:actorType}, {e:actorId}, {e:actorRoles}, {e:action}, {e:objectType}, {e:objectName}, {e:fields}, {e:requestId}, {e:ip}, {e:detail})
     SELECT ${p(0)}, ${p(1)}, ${p(2)}::text[], ${p(3)}, ${p(4)}, ${rows.objectName ?? p(5)}, ${p(6)}::text[], ${p(7)}, ${p(8)}, ${p(9)}::jsonb${source}`,
  );
}

// Written in the transaction of every audited change or read (503A orders among them): one raw INSERT, built once.
const insertSql = once(() => insertAuditSql(1));

/** The ten values of an audit row, in the order of the INSERT's placeholders (recordAudit, auditInsertSql). */
export function auditValues(actor: Actor, entry: AuditEntry): unknown[] {
  return [
    actor.type,
    actor.id,
    actor.roles ?? [],
    entry.action,
    entry.object_type,
    entry.object_name,
    entry.fields ?? [],
    actor.requestId ?? null,
    actor.ip ?? null,
    entry.detail ? JSON.stringify(entry.detail) : null,
  ];
}

export async function recordAudit(transaction: Tx | undefined, actor: Actor, entry: AuditEntry): Promise<void> {
  await execute(insertSql(), auditValues(actor, entry), { transaction });
}

/**
 * The audit row's INSERT as SQL text, for a read audited by the very statement that reads (a
 * data-modifying CTE: the row and the read commit together, with no transaction around them):
 * auditValues bound from `$first` on, one row written for each row of `from` where `when` holds.
 */
export function auditInsertSql(first: number, from: string, when: string): string {
  return insertAuditSql(first, { from, when });
}

/** Several rows at once (e.g. a list that returned several 503A orders). */
export async function recordAuditMany(transaction: Tx | undefined, actor: Actor, entries: AuditEntry[]): Promise<void> {
  for (const entry of entries) await recordAudit(transaction, actor, entry);
}

export interface AuditRow {
  id: number;
  actor_type: string;
  actor_id: string;
  actor_roles: string[];
  action: string;
  object_type: string;
  object_name: string;
  fields: string[];
  request_id: string | null;
  ip: string | null;
  detail: Record<string, unknown> | null;
  created_at: string;
}

/** Audit rows for one object, oldest first (used by tests and admin tooling). */
export async function auditTrailOf(objectType: string, objectName: string, opts: { transaction?: Tx } = {}): Promise<AuditRow[]> {
  const c = columnsOf(AuditEvent);
  const keys = [
    'id',
    'actor_type',
    'actor_id',
    'actor_roles',
    'action',
    'object_type',
    'object_name',
    'fields',
    'request_id',
    'ip',
    'detail',
    'created_at',
  ] as const;
  const attributes = keys.map((k) => [(c as Record<string, string>)[camel(k)], k] as [string, string]);
  return AuditEvent.findAll({
    attributes,
    where: { objectType, objectName },
    order: [['id', 'ASC']],
    raw: true,
    transaction: opts.transaction,
  }) as unknown as Promise<AuditRow[]>;
}

// One row per object name in one statement (bulk imports: one row per changed record): the names
// are bound where the object name goes ($6) and unnested
const insertManySql = once(() => insertAuditSql(1, { from: 'unnest($6::text[]) AS n', objectName: 'n' }));

/** The same entry for many objects (their names), written by one statement in the caller's transaction. */
export async function recordAuditForEach(transaction: Tx, actor: Actor, entry: Omit<AuditEntry, 'object_name'>, objectNames: string[]): Promise<void> {
  if (objectNames.length === 0) return;
  const values = auditValues(actor, { ...entry, object_name: '' });
  values[5] = objectNames;
  await execute(insertManySql(), values, { transaction });
}
