/**
 * /portal/integrations (issue 13) and /portal/orders (issue 26): server-rendered pages for a
 * logged-in customer or vendor (session cookie `sid`); the pages before a session (log in, password
 * reset) are in portal-account.routes.ts. Page forms are CSRF-protected with the session's own token
 * (portal-http.ts). Every action calls the service the svc.integrations.* methods call, so the
 * policy decides both; an error is shown in the clinic's words (portal-messages.ts) with what was
 * typed kept (never a secret). A disconnect asks first: its form without `confirmed=yes` only
 * shows the question.
 */
import type { Request, ResponseObject, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { Actor } from '../auth/actor.js';
import { listClinicOrders } from '../orders/clinic-orders.service.js';
import { DomainError, PermissionError } from '../shared/errors.js';
import { integrationStatus } from './connections.service.js';
import { messagePage } from './portal-layout.js';
import { plainError } from './portal-messages.js';
import { integrationsPage, type Confirm } from './portal.page.js';
import { ordersPage } from './portal-orders.page.js';
import { actorOf } from '../http/plugins/auth.js';
import { field, formSession, html, namesFor, page, pageSession, type Form } from './portal-http.js';
import { connectShipper, disconnectShipper } from './shipper-connect.service.js';
import { disconnectStore, installFormTargets, startStoreInstall } from './store-oauth.service.js';
import { syncOwnStore } from './store-sync.service.js';

const PAGE = '/portal/integrations';
const NOT_HERE = 'Integrations are managed by clinic and vendor accounts. This account has none.';

interface PageState {
  notice?: string;
  error?: string;
  status?: number;
  confirm?: Confirm;
  typed?: Record<string, string>;
}

async function renderPage(h: ResponseToolkit, actor: Actor, csrf: string, state: PageState = {}) {
  const s = await integrationStatus(actor);
  const body = integrationsPage({ ...(await namesFor(actor)), csrf, shipper: s.shipper, storefront: s.storefront, ...state });
  return html(h, body, state.status ?? 200, await installFormTargets());
}

async function showIntegrations(request: Request, h: ResponseToolkit) {
  const session = pageSession(request, h, actorOf);
  if (!('actor' in session)) return session;
  try {
    const notice = typeof request.query.notice === 'string' ? request.query.notice : undefined;
    return await renderPage(h, session.actor, session.csrf, { notice });
  } catch (err) {
    if (err instanceof PermissionError) return html(h, messagePage('Integrations', NOT_HERE, { href: '/portal/login', label: 'Log in as another user' }), 403);
    throw err;
  }
}

type Action = (actor: Actor, form: Form, h: ResponseToolkit) => Promise<ResponseObject | string | { confirm: Confirm }>;

/** A disconnect runs only with `confirmed=yes` (the confirmation's own button); the first press asks. */
const confirmed = (form: Form, confirm: Confirm, run: () => Promise<string>) => (field(form, 'confirmed') === 'yes' ? run() : Promise.resolve({ confirm }));

const ACTIONS: Record<string, Action> = {
  'shipper/connect': async (actor, form) => {
    await connectShipper(actor, { api_key: field(form, 'api_key'), api_secret: field(form, 'api_secret') });
    return 'shipper-connected';
  },
  'shipper/disconnect': (actor, form) => confirmed(form, 'shipper-disconnect', async () => (await disconnectShipper(actor), 'shipper-disconnected')),
  'storefront/install': async (actor, form, h) => {
    const { authorize_url } = await startStoreInstall(actor, { shop_domain: field(form, 'shop_domain') });
    return h.redirect(authorize_url).code(303);
  },
  'storefront/disconnect': (actor, form) => confirmed(form, 'store-disconnect', async () => (await disconnectStore(actor), 'storefront-disconnected')),
  'storefront/sync-catalog': async (actor) => (await syncOwnStore(actor, 'catalog'), 'catalog-synced'),
  'storefront/sync-inventory': async (actor) => (await syncOwnStore(actor, 'inventory'), 'inventory-synced'),
  'storefront/import-orders': async (actor) => (await syncOwnStore(actor, 'orders'), 'orders-imported'),
};

/** What the clinic typed that may be shown back (never the API secret). */
const typedOf = (form: Form) => ({ api_key: field(form, 'api_key'), shop_domain: field(form, 'shop_domain') });

async function runAction(request: Request, h: ResponseToolkit) {
  const action = ACTIONS[`${String(request.params.area)}/${String(request.params.action)}`];
  if (!action) return html(h, messagePage('Not found', 'There is no such form.'), 404);
  const session = await formSession(request, h);
  if (!('actor' in session)) return session;
  const form = (request.payload ?? {}) as Form;
  try {
    const done = await action(session.actor, form, h);
    if (typeof done === 'string') return h.redirect(`${PAGE}?notice=${done}`).code(303);
    return 'confirm' in done ? await renderPage(h, session.actor, session.csrf, { confirm: done.confirm }) : done;
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    if (err instanceof PermissionError) return html(h, messagePage('Integrations', NOT_HERE), 403);
    return renderPage(h, session.actor, session.csrf, { error: plainError(err), status: err.status, typed: typedOf(form) });
  }
}

async function showOrders(request: Request, h: ResponseToolkit) {
  const session = pageSession(request, h, actorOf);
  if (!('actor' in session)) return session;
  const asked = Number(request.query.page ?? 1);
  try {
    const orders = await listClinicOrders(session.actor, { page: Number.isInteger(asked) && asked > 0 ? asked : 1 });
    return html(h, ordersPage({ ...(await namesFor(session.actor)), csrf: session.csrf, page: orders }));
  } catch (err) {
    if (!(err instanceof PermissionError)) throw err;
    return html(
      h,
      messagePage('Orders', 'The orders page shows a clinic’s own orders. This account is not a clinic’s.', { href: PAGE, label: 'Back to the portal' }),
      403,
    );
  }
}

export const portalRoutes: ServerRoute[] = [
  page('GET', '/portal', (_r, h) => h.redirect(PAGE).code(303), 'The portal (its first page: integrations)'),
  page('GET', PAGE, showIntegrations, 'Your shipping account and online store connections (HTML)'),
  page('POST', `${PAGE}/{area}/{action}`, runAction, 'The forms of /portal/integrations (CSRF token of the session)'),
  page('GET', '/portal/orders', showOrders, 'Your clinic’s recent orders with each shipment’s status, carrier and tracking link (HTML, ?page=N)'),
];
