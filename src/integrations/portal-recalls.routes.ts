/**
 * /portal/recalls: a clinic's recalls and each recall's notice with its acknowledgement form. The page
 * reads getRecall and the form posts to acknowledgeRecall, the functions svc.recalls.get_recall and
 * svc.recalls.acknowledge call, so the policy decides both (another clinic's recall is 404, as in
 * the API). The form carries the session's CSRF token; an error is shown in the clinic's words with
 * what was typed kept, and nothing is recorded; a recorded answer redirects to the notice with a
 * confirmation.
 */
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { Actor } from '../auth/actor.js';
import { recallCustomerOf } from '../auth/policy/recalls.rules.js';
import { actorOf } from '../http/plugins/auth.js';
import { getRecall } from '../recalls/recall-read.service.js';
import { customerRecalls } from '../recalls/recall-portal.service.js';
import { acknowledgeRecall, type AcknowledgeInput } from '../recalls/recall.service.js';
import { DomainError, NotFoundError } from '../shared/errors.js';
import { formSession, html, pageSession, namesFor, page, type Form } from './portal-http.js';
import { messagePage } from './portal-layout.js';
import { plainError } from './portal-messages.js';
import { noticePage, recallsPage, type NoticeRecall } from './portal-recalls.page.js';

const LIST = '/portal/recalls';
const BACK = { href: '/portal/integrations', label: 'Back to the portal' };
const NOT_HERE = 'Recall notices are for a clinic’s own units. This account is not a clinic’s.';
const NOT_FOUND = 'There is no such recall for your clinic.';
const DONE = 'Thank you: your answer is recorded. You can change it here while the recall is open.';

async function showRecalls(request: Request, h: ResponseToolkit) {
  const session = pageSession(request, h, actorOf);
  if (!('actor' in session)) return session;
  if (recallCustomerOf(session.actor) === null) return html(h, messagePage('Recalls', NOT_HERE, BACK), 403);
  const list = await customerRecalls(session.actor);
  return html(h, recallsPage({ ...(await namesFor(session.actor)), csrf: session.csrf, list }));
}

interface NoticeState {
  notice?: string;
  error?: string;
  status?: number;
  typed?: Record<string, string>;
  invalid?: number[];
}

/** The notice page of a recall the clinic may see; 404 in words for any other. */
async function renderNotice(h: ResponseToolkit, actor: Actor, csrf: string, name: string, state: NoticeState = {}) {
  if (recallCustomerOf(actor) === null) return html(h, messagePage('Recalls', NOT_HERE, BACK), 403);
  try {
    const recall = (await getRecall(actor, name)) as unknown as NoticeRecall;
    return html(h, noticePage({ ...(await namesFor(actor)), csrf, recall, ...state }), state.status ?? 200);
  } catch (err) {
    if (err instanceof NotFoundError) return html(h, messagePage('Recall', NOT_FOUND, { href: LIST, label: 'Your recalls' }), 404);
    throw err;
  }
}

async function showNotice(request: Request, h: ResponseToolkit) {
  const session = pageSession(request, h, actorOf);
  if (!('actor' in session)) return session;
  const notice = request.query.notice === 'acknowledged' ? DONE : undefined;
  return renderNotice(h, session.actor, session.csrf, String(request.params.name), { notice });
}

const COUNT = /^\d{1,9}(\.\d{1,3})?$/;
const FIELDS = [
  ['on_hand', 'qty_on_hand'],
  ['returned', 'qty_returned'],
  ['destroyed', 'qty_destroyed'],
] as const;

/** The form's lines (a line left empty is not answered), or the sentence saying what to fix. */
function formLines(form: Form): { lines: AcknowledgeInput['lines']; invalid: number[] } | { error: string; invalid: number[] } {
  const byLine = new Map<number, Record<string, number>>();
  const invalid = new Set<number>();
  for (const [key, raw] of Object.entries(form)) {
    const m = /^(on_hand|returned|destroyed)_(\d{1,15})$/.exec(key);
    const text = typeof raw === 'string' ? raw.trim() : '';
    if (!m || text === '') continue;
    const line = Number(m[2]);
    if (!COUNT.test(text)) invalid.add(line);
    const field = FIELDS.find(([f]) => f === m[1])![1];
    byLine.set(line, { ...(byLine.get(line) ?? {}), [field]: Number(text) });
  }
  if (invalid.size) return { error: 'Please enter numbers of units, 0 or more (like 2 or 0.5).', invalid: [...invalid] };
  if (!byLine.size) return { error: 'Please enter, for at least one line, how many units are on hand, returned or destroyed.', invalid: [] };
  return { lines: [...byLine].map(([line, q]) => ({ line, ...q })), invalid: [] };
}

/** The lines a refusal names ("Line 12: …"), to mark them on the page. */
const linesNamed = (err: DomainError) => err.messages.flatMap((m) => [...m.matchAll(/\bLine (\d+)\b/g)].map((x) => Number(x[1])));

async function acknowledge(request: Request, h: ResponseToolkit) {
  const session = await formSession(request, h);
  if (!('actor' in session)) return session;
  const name = String(request.params.name);
  const form = (request.payload ?? {}) as Form;
  const typed = Object.fromEntries(Object.entries(form).filter(([k, v]) => /^(on_hand|returned|destroyed)_\d+$/.test(k) && typeof v === 'string')) as Record<
    string,
    string
  >;
  const parsed = formLines(form);
  if ('error' in parsed) return renderNotice(h, session.actor, session.csrf, name, { error: parsed.error, status: 400, typed, invalid: parsed.invalid });
  try {
    await acknowledgeRecall(session.actor, { recall: name, lines: parsed.lines });
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    if (err instanceof NotFoundError) return renderNotice(h, session.actor, session.csrf, name);
    return renderNotice(h, session.actor, session.csrf, name, { error: plainError(err), status: err.status, typed, invalid: linesNamed(err) });
  }
  return h.redirect(`${LIST}/${encodeURIComponent(name)}?notice=acknowledged`).code(303);
}

export const portalRecallRoutes: ServerRoute[] = [
  page('GET', LIST, showRecalls, 'Your clinic’s product recalls, open ones first, with what is still to answer (HTML)'),
  page('GET', `${LIST}/{name}`, showNotice, 'A recall notice: reason, instructions, your clinic’s units and the acknowledgement form (HTML)'),
  page(
    'POST',
    `${LIST}/{name}/acknowledge`,
    acknowledge,
    'Acknowledge a recall: per line the units on hand, returned and destroyed (CSRF token of the session)',
  ),
];
