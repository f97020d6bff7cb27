/**
 * What every /portal page shares: the frame (header with the organisation's name, the navigation),
 * the one inline style and the one inline script, each allowed by its hash (CSP), escaping, and
 * instants. A time is sent as `<time datetime="…">` with an ISO 8601 instant with its offset, and a
 * readable UTC text for a browser without script; the script rewrites it in the browser's own time
 * zone, with the zone's name (Intl.DateTimeFormat, timeZoneName 'short'), so a clinic reads its
 * local time wherever it is.
 */
import { createHash } from 'node:crypto';
import type { Request } from '@hapi/hapi';

const STYLE = [
  '*,*::before,*::after{box-sizing:border-box}',
  'body{font:15px/1.5 system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem;color:#1d2430;overflow-wrap:anywhere}',
  'section{border:1px solid #d5dbe3;border-radius:6px;padding:1rem 1.25rem;margin:1rem 0}',
  'h2{margin-top:0}.status{font-weight:600}.connected{color:#17663a}.off{color:#8a5a00}',
  '.notice{background:#e8f5ec;border:1px solid #9fd3b1;padding:.5rem 1rem;border-radius:4px}',
  '.error{background:#fdecea;border:1px solid #f0a8a0;padding:.5rem 1rem;border-radius:4px}',
  'form{margin:.5rem 0}label{display:inline-block;min-width:8rem}',
  'input[type=text],input[type=password],input[type=email]{width:100%;max-width:18rem;padding:.2rem}',
  'input[type=number]{width:4.5rem;max-width:100%;padding:.2rem}tr.invalid{background:#fdecea}',
  'button{padding:.3rem .8rem;margin-top:.3rem;max-width:100%}',
  'dl{display:grid;grid-template-columns:minmax(0,11rem) minmax(0,1fr);gap:.2rem .8rem}dt{color:#5a6472}dd{margin:0;min-width:0}',
  'header{display:flex;flex-wrap:wrap;gap:.5rem 1rem;justify-content:space-between;align-items:center}',
  'header h1{margin:0}.who{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}.who form{margin:0}',
  'nav{margin:.75rem 0 0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}nav a[aria-current]{font-weight:600}',
  '.actions{display:flex;flex-wrap:wrap;gap:0 .5rem;align-items:center}.actions form{margin:0}',
  '.danger-zone{margin-top:1rem;padding-top:.75rem;border-top:1px dashed #f0a8a0}',
  'button.danger{background:#fff;color:#a3231b;border:2px solid #a3231b;border-radius:4px;font-weight:600}',
  '.confirm{background:#fdecea;border:2px solid #a3231b;border-radius:6px;padding:.75rem 1rem}',
  '.confirm button.danger{background:#a3231b;color:#fff}',
  'table{width:100%;border-collapse:collapse}th,td{text-align:left;vertical-align:top;padding:.35rem .5rem;border-bottom:1px solid #e3e7ec}',
  'ul.parcels{margin:0;padding-left:1rem}.pager{display:flex;flex-wrap:wrap;gap:.5rem 1rem;margin-top:1rem}',
  '@media (max-width:40rem){dl{grid-template-columns:minmax(0,1fr)}dt{margin-top:.4rem}',
  'table,thead,tbody,tr,th,td{display:block}thead{display:none}tr{border:1px solid #d5dbe3;border-radius:6px;margin:.5rem 0;padding:.25rem 0}',
  'td{border:0}td::before{content:attr(data-label);display:block;color:#5a6472;font-size:.85em}}',
].join('');

/** Rewrites each <time datetime> in the browser's time zone, with the zone's short name. */
const SCRIPT = [
  "(function(){var f=new Intl.DateTimeFormat(undefined,{year:'numeric',month:'short',day:'numeric',hour:'2-digit',minute:'2-digit',timeZoneName:'short'});",
  "document.querySelectorAll('time[datetime]').forEach(function(t){var d=new Date(t.getAttribute('datetime'));",
  "if(!isNaN(d.getTime())){t.textContent=f.format(d);t.setAttribute('data-local','1');}});})();",
].join('');

const hashOf = (text: string) => createHash('sha256').update(text).digest('base64');
const STYLE_HASH = hashOf(STYLE);
const SCRIPT_HASH = hashOf(SCRIPT);

/** The pages' CSP: nothing loads but their style and their time script; forms post to this origin (and the install's redirect to the shop's). */
export function portalCsp(formTargets: string[] = []): string {
  return `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; script-src 'sha256-${SCRIPT_HASH}'; form-action 'self' ${formTargets.join(' ')}; base-uri 'none'; frame-ancestors 'none'`.replace(
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

/** An instant for a reader: ISO 8601 with its offset in `datetime`, shown in the browser's own zone by the page's script. */
export function timeTag(at: Date | string | null | undefined): string {
  if (!at) return '';
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return '';
  const iso = d.toISOString().replace(/\.\d+Z$/, '+00:00');
  const fallback = iso.replace('T', ' ').replace(/:\d\d\+00:00$/, ' UTC');
  return `<time datetime="${iso}">${fallback}</time>`;
}

export function layout(title: string, body: string): string {
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
<script>${SCRIPT}</script>
</body>
</html>
`;
}

export const hidden = (csrf: string) => `<input type="hidden" name="csrf_token" value="${esc(csrf)}">`;

export type PortalTab = 'integrations' | 'orders' | 'recalls';

/** The customer's recalls as the frame shows them: a Recalls tab when it has any, a banner on the home page for each open one not acknowledged. */
export interface RecallNav {
  any: boolean;
  unacknowledged: string[];
}

export interface Frame {
  title: string;
  tab: PortalTab;
  who: string;
  org: string;
  csrf: string;
  recalls?: RecallNav;
}

/** The home page's call to act on a recall (every value escaped; the names link to their notices). */
function recallBanner(names: string[]): string {
  const links = names.map((n) => `<a href="/portal/recalls/${encodeURIComponent(n)}">${esc(n)}</a>`).join(', ');
  return `<p class="error" id="recall-banner" role="alert"><strong>Product recall:</strong> units your clinic received are recalled (${links}). Please open the notice and tell us, for each line, how many units you have on hand, returned or destroyed.</p>`;
}

/** The signed-in frame: the page's title, the organisation's name (never its id), the user, log out, and the tabs. */
export function signedIn(opts: Frame, body: string): string {
  const tab = (key: PortalTab, label: string) => `<a href="/portal/${key}"${opts.tab === key ? ' aria-current="page"' : ''}>${label}</a>`;
  const banner = opts.tab === 'integrations' && opts.recalls?.unacknowledged.length ? recallBanner(opts.recalls.unacknowledged) : '';
  return layout(
    opts.title,
    `<header><div><h1>${esc(opts.title)}</h1><div id="org" class="org">${esc(opts.org)}</div></div>
<div class="who"><span id="who">${esc(opts.who)}</span><form method="post" action="/portal/logout" id="logout">${hidden(opts.csrf)}<button type="submit">Log out</button></form></div></header>
<nav>${tab('integrations', 'Integrations')}${tab('orders', 'Orders')}${opts.recalls?.any ? tab('recalls', 'Recalls') : ''}</nav>
<main>
${banner}${body}
</main>`,
  );
}

/** A one-message page (a callback that failed), with the way back. */
export function messagePage(title: string, message: string, back = { href: '/portal/integrations', label: 'Back to integrations' }): string {
  return layout(
    title,
    `<main><h1>${esc(title)}</h1><p class="error" id="error">${esc(message)}</p><p><a href="${esc(back.href)}">${esc(back.label)}</a></p></main>`,
  );
}
