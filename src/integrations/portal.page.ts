/**
 * The HTML of /portal/integrations: server-rendered, every value escaped, in the clinic's words (the
 * partners by their product names: ShipStation for shipper, Shopify for storepartner). Each form
 * posts its session's CSRF token (synchroniser token) in a hidden field. A disconnect is a second
 * step: its button shows a confirmation in the section, whose own button disconnects.
 */
import type { ConnectionView } from './connections.service.js';
import type { SyncRecord } from './integration-connection.model.js';
import { esc, hidden, signedIn, timeTag, type RecallNav } from './portal-layout.js';

export { esc, messagePage, portalCsp, wantsHtml } from './portal-layout.js';
export { loginPage } from './portal-account.page.js';

/** What a disconnect asks before it is done. */
export type Confirm = 'shipper-disconnect' | 'store-disconnect';

const post = (action: string, csrf: string, inner: string, id: string) =>
  `<form method="post" action="/portal/integrations/${action}" id="${id}">${hidden(csrf)}${inner}</form>`;

function statusWord(c: ConnectionView): string {
  return c.status === 'connected' ? 'Connected' : c.status === 'disconnected' ? 'Disconnected' : 'Not connected';
}

function syncLine(label: string, s: SyncRecord | null, id: string): string {
  if (!s) return `<dt>${esc(label)}</dt><dd id="${id}">never</dd>`;
  return `<dt>${esc(label)}</dt><dd id="${id}"><span class="${s.ok ? 'connected' : 'off'}">${s.ok ? 'OK' : 'Failed'}</span> at ${timeTag(s.at)}: ${esc(s.summary)}</dd>`;
}

/** The last tracking or cancellation sent back to the store: Sent, Waiting (e.g. the store is disconnected) or Failed. */
function pushLine(s: SyncRecord | null): string {
  if (!s) return `<dt>Last update sent to the store</dt><dd id="last-store-push">never</dd>`;
  const waiting = !s.ok && s.summary.startsWith('waiting: ');
  const label = s.ok ? 'Sent' : waiting ? 'Waiting' : 'Failed';
  return `<dt>Last update sent to the store</dt><dd id="last-store-push"><span class="${s.ok ? 'connected' : 'off'}">${label}</span> at ${timeTag(s.at)}: ${esc(waiting ? s.summary.slice(9) : s.summary)}</dd>`;
}

/** A destructive action: a distinct button apart from the others, which first asks (the confirmation's own form does it). */
function dangerZone(o: { action: string; csrf: string; id: string; label: string; asking: boolean; question: string }): string {
  if (!o.asking) return `<div class="danger-zone">${post(o.action, o.csrf, `<button type="submit" class="danger">${esc(o.label)}…</button>`, o.id)}</div>`;
  return `<div class="confirm" id="${o.id}-confirm" role="alertdialog" aria-labelledby="${o.id}-question"><p id="${o.id}-question"><strong>${esc(o.question)}</strong></p>
<div class="actions">${post(o.action, o.csrf, `<input type="hidden" name="confirmed" value="yes"><button type="submit" class="danger">Yes, ${esc(o.label.toLowerCase())}</button>`, `${o.id}-yes`)}
<a href="/portal/integrations" id="${o.id}-cancel">Cancel, keep it connected</a></div></div>`;
}

interface SectionInput {
  c: ConnectionView;
  csrf: string;
  confirm?: Confirm;
  typed: Record<string, string>;
}

function shipperSection({ c, csrf, confirm, typed }: SectionInput): string {
  const on = c.status === 'connected';
  return `<section id="shipper"><h2>Shipping account (ShipStation)</h2>
<p>Status: <span class="status ${on ? 'connected' : 'off'}" id="shipper-status">${statusWord(c)}</span>
${on ? ` since ${timeTag(c.connected_at)}; your orders ship with your own ShipStation account.` : '; your orders ship with the marketplace’s shipping account.'}</p>
${on && c.webhook_events.length ? `<p id="shipper-webhooks">Tracking numbers come back to us automatically from your ShipStation account.</p>` : ''}
${post(
  'shipper/connect',
  csrf,
  `<p><label for="api_key">API key</label> <input type="text" id="api_key" name="api_key" autocomplete="off" value="${esc(typed.api_key ?? '')}" required></p>
<p><label for="api_secret">API secret</label> <input type="password" id="api_secret" name="api_secret" autocomplete="off" required></p>
<button type="submit">${on ? 'Replace API key' : 'Connect shipping account'}</button>`,
  'shipper-connect',
)}
${
  on
    ? dangerZone({
        action: 'shipper/disconnect',
        csrf,
        id: 'shipper-disconnect',
        label: 'Disconnect shipping account',
        asking: confirm === 'shipper-disconnect',
        question: 'Disconnect your ShipStation account? Your orders will ship with the marketplace’s account again.',
      })
    : ''
}
</section>`;
}

function storeSection({ c, csrf, confirm, typed }: SectionInput): string {
  const on = c.status === 'connected';
  const install = post(
    'storefront/install',
    csrf,
    `<p><label for="shop_domain">Shop address</label> <input type="text" id="shop_domain" name="shop_domain" placeholder="my-shop.myshopify.com" value="${esc(typed.shop_domain ?? '')}" required></p>
<button type="submit">${on ? 'Connect another Shopify store' : 'Connect Shopify store'}</button>`,
    'store-install',
  );
  return `<section id="storefront"><h2>Online store (Shopify)</h2>
<p>Status: <span class="status ${on ? 'connected' : 'off'}" id="store-status">${statusWord(c)}</span>
${on ? ` to <strong id="store-shop">${esc(c.shop_domain)}</strong> since ${timeTag(c.connected_at)}` : ''}</p>
<dl>${on ? `<dt>Permissions</dt><dd id="store-scope">${esc((c.scope ?? '').split(',').join(', '))}</dd>` : ''}
${syncLine('Last catalog sync', c.last_catalog_sync, 'last-catalog-sync')}
${syncLine('Last inventory sync', c.last_inventory_sync, 'last-inventory-sync')}
${syncLine('Last orders import', c.last_orders_sync, 'last-orders-sync')}
${pushLine(c.last_store_push)}</dl>
${
  on
    ? `<div class="actions">${post('storefront/sync-catalog', csrf, '<button type="submit">Sync catalog now</button>', 'store-sync-catalog')}
${post('storefront/sync-inventory', csrf, '<button type="submit">Sync inventory now</button>', 'store-sync-inventory')}
${post('storefront/import-orders', csrf, '<button type="submit">Import orders now</button>', 'store-import-orders')}</div>`
    : ''
}
${install}
${
  on
    ? dangerZone({
        action: 'storefront/disconnect',
        csrf,
        id: 'store-disconnect',
        label: 'Disconnect online store',
        asking: confirm === 'store-disconnect',
        question: `Disconnect ${c.shop_domain ?? 'your Shopify store'}? Its new orders will no longer come in and tracking will no longer go back to it. Products already in the catalog stay.`,
      })
    : ''
}
</section>`;
}

export const NOTICES: Readonly<Record<string, string>> = {
  'shipper-connected': 'Your ShipStation account is connected. Your key was checked with ShipStation and is stored encrypted.',
  'shipper-disconnected': 'Your ShipStation account is disconnected.',
  'storefront-connected': 'Your Shopify store is connected.',
  'storefront-disconnected': 'Your Shopify store is disconnected.',
  'catalog-synced': 'Catalog sync finished (see the result below).',
  'inventory-synced': 'Inventory sync finished (see the result below).',
  'orders-imported': 'Orders import finished (see the result below).',
};

export function integrationsPage(opts: {
  who: string;
  org: string;
  csrf: string;
  recalls?: RecallNav;
  shipper: ConnectionView;
  storefront: ConnectionView;
  notice?: string;
  error?: string;
  confirm?: Confirm;
  /** what the clinic typed in the form that failed (never a secret) */
  typed?: Record<string, string>;
}): string {
  const typed = opts.typed ?? {};
  return signedIn(
    { title: 'Integrations', tab: 'integrations', who: opts.who, org: opts.org, csrf: opts.csrf, recalls: opts.recalls },
    `<p>Connect your own shipping account and your online store. Keys are checked with ShipStation or Shopify, stored encrypted and never shown again.</p>
${opts.notice && NOTICES[opts.notice] ? `<p class="notice" id="notice">${esc(NOTICES[opts.notice])}</p>` : ''}
${opts.error ? `<p class="error" id="error" role="alert">${esc(opts.error)}</p>` : ''}
${shipperSection({ c: opts.shipper, csrf: opts.csrf, confirm: opts.confirm, typed })}
${storeSection({ c: opts.storefront, csrf: opts.csrf, confirm: opts.confirm, typed })}`,
  );
}
