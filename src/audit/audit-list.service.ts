/**
 * The review of the audit trail (issue 24, item 12): who read or changed patient data and other
 * sensitive records, newest first, a page at a time, for administrators only. `svc audit list` and
 * the `svc.audit.list` method both call listAuditEvents.
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { selectRows, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { InputError } from '../shared/errors.js';
import { emailsOfUsers, findUserByEmail } from '../users/users.service.js';
import { AuditEvent } from './audit-event.model.js';
import { frappeDatetimeSql } from '../shared/frappe-query.js';

export interface AuditQuery {
  /** the object's name (e.g. a Sales Order), or `Type/name` (e.g. `Sales Order/SAL-ORD-2026-00001`) */
  object?: string;
  /** who acted: a user's e-mail, or the actor id as recorded (a user id, a vendor, cli:<os-user>, job:<name>) */
  actor?: string;
  /** rows at or after this date (YYYY-MM-DD) or ISO 8601 datetime; server time (US Eastern) without an offset */
  since?: string;
  page?: number;
  page_length?: number;
}

export interface AuditListRow {
  id: number;
  created_at: string;
  actor_type: string;
  actor_id: string;
  /** the user's e-mail when the actor is a user, else null */
  actor_email: string | null;
  actor_roles: string[];
  action: string;
  object_type: string;
  object_name: string;
  fields: string[];
  request_id: string | null;
  ip: string | null;
  detail: Record<string, unknown> | null;
}

export interface AuditPage {
  total: number;
  page: number;
  page_length: number;
  events: AuditListRow[];
}

const DEFAULT_PAGE_LENGTH = 20;
const MAX_PAGE_LENGTH = 100;
const DATE_OR_DATETIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/;

// each filter is on or off through its bind being NULL: one statement text for every combination
const FILTERS = `($1::text IS NULL OR {e.objectType} = $1) AND ($2::text IS NULL OR {e.objectName} = $2)
   AND ($3::text[] IS NULL OR {e.actorId} = ANY($3)) AND ($4::timestamptz IS NULL OR {e.createdAt} >= $4::timestamptz)`;
const listSql = once(() => ({
  page: sqlFor({ e: AuditEvent })(
    `SELECT {e.id}::float8 AS id, ${frappeDatetimeSql('{e.createdAt}')} AS created_at,
            {e.actorType} AS actor_type, {e.actorId} AS actor_id, {e.actorRoles} AS actor_roles, {e.action} AS action,
            {e.objectType} AS object_type, {e.objectName} AS object_name, {e.fields} AS fields, {e.requestId} AS request_id, {e.ip} AS ip, {e.detail} AS detail
       FROM {e} WHERE ${FILTERS} ORDER BY {e.id} DESC LIMIT $5 OFFSET $6`,
  ),
  count: sqlFor({ e: AuditEvent })(`SELECT count(*)::int AS n FROM {e} WHERE ${FILTERS}`),
}));

function positive(value: unknown, name: string, fallback: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new InputError(`${name} must be a whole number of 1 or more`);
  return n;
}

/** The query's binds: object split into type and name, an e-mail resolved to its user id (with the text itself). */
async function filterBinds(q: AuditQuery): Promise<unknown[]> {
  const object = q.object?.trim() || null;
  const slash = object ? object.indexOf('/') : -1;
  const [type, name] = object && slash > 0 ? [object.slice(0, slash), object.slice(slash + 1)] : [null, object];
  const who = q.actor?.trim() || null;
  const user = who && who.includes('@') ? await findUserByEmail(who) : undefined;
  const since = q.since?.trim() || null;
  if (since && (!DATE_OR_DATETIME.test(since) || Number.isNaN(Date.parse(since.length === 10 ? `${since}T00:00:00Z` : since.replace(' ', 'T'))))) {
    throw new InputError('since must be a date (YYYY-MM-DD) or an ISO 8601 datetime');
  }
  return [type, name, who ? [who, ...(user ? [user.id] : [])] : null, since];
}

/** A page of the audit trail, newest first, filtered by object, actor and time (administrators only). */
export async function listAuditEvents(actor: Actor, q: AuditQuery = {}, opts: { transaction?: Tx } = {}): Promise<AuditPage> {
  authorize(actor, 'read', 'Audit Event');
  const page = positive(q.page, 'page', 1);
  const pageLength = Math.min(positive(q.page_length, 'page_length', DEFAULT_PAGE_LENGTH), MAX_PAGE_LENGTH);
  const binds = await filterBinds(q);
  const rows = await selectRows<Omit<AuditListRow, 'actor_email'>>(listSql().page, [...binds, pageLength, (page - 1) * pageLength], opts);
  const [{ n }] = await selectRows<{ n: number }>(listSql().count, binds, opts);
  const emails = await emailsOfUsers(
    rows.filter((r) => r.actor_type === 'user').map((r) => r.actor_id),
    opts,
  );
  return { total: n, page, page_length: pageLength, events: rows.map((r) => ({ ...r, actor_email: emails.get(r.actor_id) ?? null })) };
}
