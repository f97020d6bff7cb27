/**
 * The service's front door: `/` names the service and points to the API docs (and the portal, once
 * it exists), so a newcomer who opens the printed URL in a browser lands somewhere useful. A client
 * that asks for JSON only gets the same links as JSON. `/favicon.ico` answers 204, so a browser's
 * first visit does not log a 404. The login answer's `home_page` comes from here too.
 */
import { createHash } from 'node:crypto';
import type { Request, ResponseToolkit, Server, ServerRoute } from '@hapi/hapi';

export interface HomeLink {
  rel: string;
  href: string;
  title: string;
  about: string;
}

/**
 * What `/` may point to. An entry shows only while the server has a GET route at its path, so the
 * portal's entry stays hidden until the portal registers `/portal`, and /docs hides with the docs.
 */
export const HOME_LINKS: readonly HomeLink[] = [
  { rel: 'portal', href: '/portal', title: 'Portal', about: 'the customer and vendor pages' },
  { rel: 'docs', href: '/docs', title: 'API documentation', about: 'every operation with its parameters and answers, to try in the browser' },
  { rel: 'openapi', href: '/openapi.json', title: 'OpenAPI document', about: 'the same description, for client generators' },
  { rel: 'ping', href: '/api/method/ping', title: 'Liveness check', about: 'answers {"message":"pong"}' },
];

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem;color:#1d2430}code{background:#eef1f5;padding:0 .25em;border-radius:3px}li{margin:.4rem 0}';
// The page carries no script; its one inline style is allowed by hash, nothing else loads.
const CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

function existing(server: Server): HomeLink[] {
  return HOME_LINKS.filter((link) => server.match('GET', link.href) !== null);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function homePage(links: HomeLink[]): string {
  const items = links.map((l) => `<li><a href="${escapeHtml(l.href)}">${escapeHtml(l.title)}</a>: ${escapeHtml(l.about)}</li>`).join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>svc</h1>
<p>The service behind the healthcare supply marketplace: catalog, price lists and stock, Sales Orders, and the vendor interface v1. It speaks JSON under <code>/api/</code>, in Frappe's conventions.</p>
<ul>
${items}
</ul>
<h2>Signing in</h2>
<p>Scripts send <code>Authorization: token &lt;api_key&gt;:&lt;api_secret&gt;</code>; browser apps log in with <code>POST /api/method/login</code> (<code>usr</code>, <code>pwd</code>) and send the CSRF token on writes; vendors use a bearer token from <code>svc.api.v1.auth.token</code>. The section "Authentication" of the README explains each, and <code>npm start</code> prints the demo logins.</p>
</main>
</body>
</html>
`;
}

/** True when the client asked for JSON and not for HTML (a browser always names text/html). */
function wantsJson(request: Request): boolean {
  const accept = String(request.headers.accept ?? '');
  return /\bapplication\/json\b/.test(accept) && !/\btext\/html\b/.test(accept);
}

function home(request: Request, h: ResponseToolkit) {
  const links = existing(request.server);
  if (wantsJson(request))
    return h
      .response({ service: 'svc', links: Object.fromEntries(links.map((l) => [l.rel, l.href])), authentication: 'README.md, section Authentication' })
      .vary('accept');
  return h.response(homePage(links)).type('text/html; charset=utf-8').header('content-security-policy', CSP).vary('accept');
}

export const homeRoutes: ServerRoute[] = [
  { method: 'GET', path: '/', options: { auth: false, app: { access: 'public' }, handler: home } },
  // No icon yet: an empty answer a browser caches, instead of a JSON 404 on every first visit.
  {
    method: 'GET',
    path: '/favicon.ico',
    options: {
      auth: false,
      app: { access: 'public' },
      cache: { expiresIn: 24 * 3600 * 1000, privacy: 'public' },
      handler: (_request, h) => h.response().code(204),
    },
  },
];
