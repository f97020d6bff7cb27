/**
 * The HTML of /portal/integrations and /portal/login: server-rendered, no script at all, one inline
 * style allowed by its hash (CSP), every value escaped. Each form posts its session's CSRF token
 * (synchroniser token) in a hidden field; the login form a double-submit token.
 */
import { createHash } from 'node:crypto';
import type { Request } from '@hapi/hapi';
import type { ConnectionView } from './connections.service.js';
import type { SyncRecord } from './integration-connection.model.js';

const STYLE = [
  'body{font:15px/1.5 system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem;color:#1d2430}',
  'section{border:1px solid #d5dbe3;border-radius:6px;padding:1rem 1.25rem;margin:1rem 0}',
  'h2{margin-top:0}.status{font-weight:600}.connected{color:#17663a}.off{color:#8a5a00}',
  '.notice{background:#e8f5ec;border:1px solid #9fd3b1;padding:.5rem 1rem;border-radius:4px}',
  '.error{background:#fdecea;border:1px solid #f0a8a0;padding:.5rem 1rem;border-radius:4px}',
  'form{margin:.5rem 0}label{display:inline-block;min-width:8rem}input[type=text],input[type=password]{width:18rem;padding:.2rem}',
  'button{padding:.3rem .8rem;margin-top:.3rem}dl{display:grid;grid-template-columns:11rem 1fr;gap:.2rem .8rem}dt{color:#5a6472}dd{margin:0}',
  'header{display:flex;justify-content:space-between;align-items:center}.actions form{display:inline-block;margin-right:.5rem}',
].join('');
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/** The page's CSP: nothing loads but its style; forms post to this origin (and the install's redirect to the shop's). */
export function portalCsp(formTargets: string[] = []): string {
  return `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action 'self' ${formTargets.join(' ')}; base-uri 'none'; frame-ancestors 'none'`.replace(
    /\s+;/g,
    ';',
  );
}

export function esc(text: unknown): string {
  return String(text ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** True when a browser asked (text/html), not a JSON client. */
export function wantsHtml(request: Request): boolean {
  return /\btext\/html\b/.test(String(request.headers.accept ?? ''));
}

function layout(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} – svc</title>
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

/** A one-message page (a callback that failed), with the way back. */
export function messagePage(title: string, message: string): string {
  return layout(
    title,
    `<main><h1>${esc(title)}</h1><p class="error" id="error">${esc(message)}</p><p><a href="/portal/integrations">Back to integrations</a></p></main>`,
  );
}

export function loginPage(opts: { csrf: string; error?: string; email?: string }): string {
  return layout(
    'Log in',
    `<main><h1>Log in to the portal</h1>
${opts.error ? `<p class="error" id="error">${esc(opts.error)}</p>` : ''}
<form method="post" action="/portal/login" id="login">
<input type="hidden" name="csrf_token" value="${esc(opts.csrf)}">
<p><label for="usr">E-mail</label> <input type="text" id="usr" name="usr" autocomplete="username" value="${esc(opts.email ?? '')}"></p>
<p><label for="pwd">Password</label> <input type="password" id="pwd" name="pwd" autocomplete="current-password"></p>
<button type="submit">Log in</button>
</form></main>`,
  );
}

const hidden = (csrf: string) => `<input type="hidden" name="csrf_token" value="${esc(csrf)}">`;
const post = (action: string, csrf: string, inner: string, id: string) =>
  `<form method="post" action="/portal/integrations/${action}" id="${id}">${hidden(csrf)}${inner}</form>`;

function when(d: Date | string | null): string {
  return d
    ? new Date(d)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC')
    : '';
}

function syncLine(label: string, s: SyncRecord | null, id: string): string {
  if (!s) return `<dt>${esc(label)}</dt><dd id="${id}">never</dd>`;
  return `<dt>${esc(label)}</dt><dd id="${id}"><span class="${s.ok ? 'connected' : 'off'}">${s.ok ? 'OK' : 'Failed'}</span> at ${esc(when(s.at))}: ${esc(s.summary)}</dd>`;
}

/** The last tracking or cancellation sent back to the store: Sent, Waiting (e.g. the store is disconnected) or Failed. */
function pushLine(s: SyncRecord | null): string {
  if (!s) return `<dt>Last update sent to the store</dt><dd id="last-store-push">never</dd>`;
  const waiting = !s.ok && s.summary.startsWith('waiting: ');
  const label = s.ok ? 'Sent' : waiting ? 'Waiting' : 'Failed';
  return `<dt>Last update sent to the store</dt><dd id="last-store-push"><span class="${s.ok ? 'connected' : 'off'}">${label}</span> at ${esc(when(s.at))}: ${esc(waiting ? s.summary.slice(9) : s.summary)}</dd>`;
}

function shipperSection(c: ConnectionView, csrf: string): string {
  const on = c.status === 'connected';
  return `<section id="shipper"><h2>Shipping (shipper)</h2>
<p>Status: <span class="status ${on ? 'connected' : 'off'}" id="shipper-status">${on ? 'Connected' : c.status === 'disconnected' ? 'Disconnected' : 'Not connected'}</span>
${on ? ` since ${esc(when(c.connected_at))}; your orders ship with your own shipper account.` : '; your orders ship with the marketplace’s account.'}</p>
${on && c.webhook_events.length ? `<p id="shipper-webhooks">Tracking comes back through this service’s own webhook, registered with your account (${esc(c.webhook_events.join(', '))}).</p>` : ''}
${post(
  'shipper/connect',
  csrf,
  `<p><label for="api_key">API key</label> <input type="text" id="api_key" name="api_key" autocomplete="off" required></p>
<p><label for="api_secret">API secret</label> <input type="password" id="api_secret" name="api_secret" autocomplete="off" required></p>
<button type="submit">${on ? 'Replace key pair' : 'Connect shipper'}</button>`,
  'shipper-connect',
)}
${on ? post('shipper/disconnect', csrf, '<button type="submit">Disconnect shipper</button>', 'shipper-disconnect') : ''}
</section>`;
}

function storeSection(c: ConnectionView, csrf: string): string {
  const on = c.status === 'connected';
  const install = post(
    'storefront/install',
    csrf,
    `<p><label for="shop_domain">Shop domain</label> <input type="text" id="shop_domain" name="shop_domain" placeholder="my-shop.myshopify.com" required></p>
<button type="submit">${on ? 'Install on another shop' : 'Install storefront app'}</button>`,
    'store-install',
  );
  return `<section id="storefront"><h2>Storefront (storepartner)</h2>
<p>Status: <span class="status ${on ? 'connected' : 'off'}" id="store-status">${on ? 'Connected' : c.status === 'disconnected' ? 'Disconnected' : 'Not connected'}</span>
${on ? ` to <strong id="store-shop">${esc(c.shop_domain)}</strong> since ${esc(when(c.connected_at))}` : ''}</p>
<dl>${on ? `<dt>Permissions</dt><dd id="store-scope">${esc((c.scope ?? '').split(',').join(', '))}</dd>` : ''}
${syncLine('Last catalog sync', c.last_catalog_sync, 'last-catalog-sync')}
${syncLine('Last inventory sync', c.last_inventory_sync, 'last-inventory-sync')}
${syncLine('Last orders import', c.last_orders_sync, 'last-orders-sync')}
${pushLine(c.last_store_push)}</dl>
${
  on
    ? `<div class="actions">${post('storefront/sync-catalog', csrf, '<button type="submit">Sync catalog now</button>', 'store-sync-catalog')}
${post('storefront/sync-inventory', csrf, '<button type="submit">Sync inventory now</button>', 'store-sync-inventory')}
${post('storefront/import-orders', csrf, '<button type="submit">Import orders now</button>', 'store-import-orders')}
${post('storefront/disconnect', csrf, '<button type="submit">Disconnect storefront</button>', 'store-disconnect')}</div>`
    : ''
}
${install}
</section>`;
}

export const NOTICES: Readonly<Record<string, string>> = {
  'shipper-connected': 'Shipper connected: the key pair was accepted by the partner and is stored encrypted.',
  'shipper-disconnected': 'Shipper disconnected.',
  'storefront-connected': 'Storefront connected: the app is installed and its token is stored encrypted.',
  'storefront-disconnected': 'Storefront disconnected.',
  'catalog-synced': 'Catalog sync finished (see the result below).',
  'inventory-synced': 'Inventory sync finished (see the result below).',
  'orders-imported': 'Orders import finished (see the result below).',
};

export function integrationsPage(opts: {
  who: string;
  org: string;
  csrf: string;
  shipper: ConnectionView;
  storefront: ConnectionView;
  notice?: string;
  error?: string;
}): string {
  return layout(
    'Integrations',
    `<header><h1>Integrations</h1><div>${esc(opts.who)} · ${esc(opts.org)} <form method="post" action="/portal/logout" id="logout">${hidden(opts.csrf)}<button type="submit">Log out</button></form></div></header>
<main>
<p>Connect your own shipping account and your storefront. Secrets are checked with the partner, stored encrypted and never shown again.</p>
${opts.notice && NOTICES[opts.notice] ? `<p class="notice" id="notice">${esc(NOTICES[opts.notice])}</p>` : ''}
${opts.error ? `<p class="error" id="error">${esc(opts.error)}</p>` : ''}
${shipperSection(opts.shipper, opts.csrf)}
${storeSection(opts.storefront, opts.csrf)}
</main>`,
  );
}
