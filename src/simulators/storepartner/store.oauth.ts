/**
 * Shopify's authorization-code OAuth as the shop plays it (partners.md section 2): authorize
 * redirects straight back (the merchant's consent is taken as given) with code, hmac, host, shop,
 * state and timestamp; the hmac is the hex HMAC-SHA256 of the other parameters, sorted and joined
 * as URLSearchParams would encode them, keyed with the app's client secret. A code is good once.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { json, type SimReply, type SimRequest } from '../shared/http.js';
import { safeEqual } from '../shared/verify.js';

/** The callback's hmac over every parameter but hmac and signature. */
export function callbackHmac(secret: string, params: Record<string, string> | URLSearchParams): string {
  const entries = [...new URLSearchParams(params as Record<string, string>).entries()].filter(([k]) => k !== 'hmac' && k !== 'signature');
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHmac('sha256', secret).update(new URLSearchParams(entries).toString()).digest('hex');
}

/** Drops `read_x` where `write_x` is granted, as the token answer does. */
const grantedScope = (scope: string) => {
  const all = scope
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return all.filter((s) => !(s.startsWith('read_') && all.includes(`write_${s.slice(5)}`))).join(',');
};

const esc = (v: string) => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The merchant's consent page a browser sees (Accept: text/html): the app, the shop, the scopes
 * asked, and an "Install app" button that sends the same query back with confirm=1. A client that
 * does not ask for HTML is redirected at once (the consent taken as given).
 */
function consentPage(shop: string, q: URLSearchParams): SimReply {
  const hidden = [...q.entries()].map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`).join('');
  const scopes = (q.get('scope') ?? '')
    .split(',')
    .filter(Boolean)
    .map((s) => `<li><code>${esc(s)}</code></li>`)
    .join('');
  const html = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Install app – ${esc(shop)}</title></head>
<body style="font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto">
<h1>Install app</h1><p>The app <strong>${esc(q.get('client_id') ?? '')}</strong> asks to connect to <strong>${esc(shop)}</strong> (storefront simulator) with these permissions:</p>
<ul id="scopes">${scopes}</ul>
<form method="get" action="/admin/oauth/authorize">${hidden}<input type="hidden" name="confirm" value="1"><button type="submit" id="install">Install app</button></form>
</body></html>`;
  return { status: 200, headers: { 'Content-Type': 'text/html; charset=utf-8' }, text: html };
}

interface OAuthOptions {
  clientId: string;
  clientSecret: string;
  shop: string;
  issue: () => string;
}
type Codes = Map<string, { scope: string; expires: number }>;

/** `GET /admin/oauth/authorize`: the consent page for a browser, else a code and the signed redirect. */
function authorize(opts: OAuthOptions, codes: Codes, req: SimRequest): SimReply {
  const q = req.query;
  if (q.get('client_id') !== opts.clientId) return { status: 400, text: 'Oauth error invalid_request: The client_id is invalid or missing' };
  const redirect = q.get('redirect_uri');
  if (!redirect || !/^https?:\/\//.test(redirect)) return { status: 400, text: 'Oauth error invalid_request: The redirect_uri is missing or not whitelisted' };
  if ((req.header('accept') ?? '').includes('text/html') && q.get('confirm') !== '1') return consentPage(opts.shop, q);
  const code = randomBytes(16).toString('hex');
  codes.set(code, { scope: q.get('scope') ?? '', expires: Date.now() + 10 * 60_000 });
  const params: Record<string, string> = {
    code,
    host: Buffer.from(`admin.shopify.com/store/${opts.shop.replace(/\.myshopify\.com$/, '')}`).toString('base64url'),
    shop: opts.shop,
    timestamp: String(Math.floor(Date.now() / 1000)),
  };
  if (q.get('state') !== null) params.state = q.get('state')!;
  params.hmac = callbackHmac(opts.clientSecret, params);
  const target = new URL(redirect);
  for (const [k, v] of Object.entries(params)) target.searchParams.set(k, v);
  return { status: 302, headers: { Location: target.toString() }, text: '' };
}

/** `POST /admin/oauth/access_token`: the client's credentials and an unused, unexpired code give a token. */
function accessToken(opts: OAuthOptions, codes: Codes, req: SimRequest): SimReply {
  const type = req.header('content-type') ?? '';
  let b: Record<string, unknown>;
  try {
    b = type.includes('application/x-www-form-urlencoded')
      ? Object.fromEntries(new URLSearchParams(req.raw.toString('utf8')))
      : (req.json() as Record<string, unknown>);
  } catch {
    return json(400, { error: 'invalid_request', error_description: 'The request body could not be read' });
  }
  if (
    typeof b?.client_id !== 'string' ||
    typeof b.client_secret !== 'string' ||
    !safeEqual(b.client_id, opts.clientId) ||
    !safeEqual(b.client_secret, opts.clientSecret)
  ) {
    return json(400, { error: 'invalid_client', error_description: 'Client authentication failed' });
  }
  const grant = typeof b.code === 'string' ? codes.get(b.code) : undefined;
  if (!grant || grant.expires < Date.now())
    return json(400, { error: 'invalid_request', error_description: 'The authorization code was not found or was already used' });
  codes.delete(b.code as string);
  return json(200, { access_token: opts.issue(), scope: grantedScope(grant.scope) });
}

export function createOAuth(opts: OAuthOptions) {
  const codes: Codes = new Map();
  return { authorize: (req: SimRequest) => authorize(opts, codes, req), accessToken: (req: SimRequest) => accessToken(opts, codes, req) };
}
