/**
 * The API documentation: hapi-swagger builds the OpenAPI document from the route schemas
 * (/openapi.json) and /docs is a static Swagger UI page over it. The page is served here rather
 * than by hapi-swagger's own page, which needs view templates and hooks a server-wide onPostHandler
 * step into every request of the API to decorate the one view it renders.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Inert from '@hapi/inert';
import type { Plugin, Server, ServerRoute } from '@hapi/hapi';
import HapiSwagger from 'hapi-swagger';
import { finishDocument, securitySchemes } from './openapi.js';

const UI_PATH = '/docs/ui/';
const UI_FILES = ['swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'swagger-ui.css', 'favicon-16x16.png', 'favicon-32x32.png'];
const uiDirectory = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const TITLE = 'svc API';

const STYLE = 'body { margin: 0; background: #fafafa; }';
const INIT = 'svc-init.js';

/** Starts Swagger UI: a file of its own, so the page needs no inline script. */
function initScript(jsonPath: string): string {
  return `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(jsonPath)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
    docExpansion: 'list',
    tagsSorter: 'alpha',
    operationsSorter: 'alpha',
    validatorUrl: null
  });
});
`;
}

/**
 * The one style element Swagger UI itself adds: inside the logo's SVG in the top bar (swagger-ui-dist
 * 5.x). A release that changes it shows the logo in black and white; test/http/docs-browser.test.ts
 * then reports the violation.
 */
const SWAGGER_LOGO_STYLE = '.logo_small_svg__cls-2{fill:#fff}.logo_small_svg__cls-3{fill:#85ea2d}';
const styleHash = (css: string) => `'sha256-${createHash('sha256').update(css).digest('base64')}'`;

/**
 * The page's CSP: scripts and styles only from this origin (the inline styles by their hashes), data:
 * images (Swagger UI's icons), requests ("Try it out") only to this origin, no plugins, no framing.
 * Swagger UI runs without eval and styles elements through the DOM, which the CSP does not govern.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  `style-src 'self' ${styleHash(STYLE)} ${styleHash(SWAGGER_LOGO_STYLE)}`,
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function docsPage(): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${TITLE}</title>
<link rel="stylesheet" href="${UI_PATH}swagger-ui.css">
<link rel="icon" type="image/png" href="${UI_PATH}favicon-32x32.png" sizes="32x32">
<style>${STYLE}</style>
</head>
<body>
<div id="swagger-ui"></div>
<script src="${UI_PATH}swagger-ui-bundle.js"></script>
<script src="${UI_PATH}swagger-ui-standalone-preset.js"></script>
<script src="${UI_PATH}${INIT}"></script>
</body>
</html>
`;
}

export const docsPlugin: Plugin<void> = {
  name: 'svc-docs',
  async register(server) {
    const jsonPath = '/openapi.json';
    await server.register([
      Inert,
      {
        plugin: HapiSwagger,
        options: {
          info: {
            title: TITLE,
            version: '1',
            description: 'Healthcare supply marketplace: catalog, Sales Orders, vendor interface v1. Errors: { exc_type, exception, _server_messages }.',
          },
          OAS: 'v3.0',
          jsonPath,
          documentationPage: false,
          swaggerUI: false,
          grouping: 'tags',
          auth: false,
          // every schema by its label (http/openapi.ts names them all); security is set per operation there too
          definitionPrefix: 'useLabel',
          securityDefinitions: securitySchemes,
        },
      },
    ]);
    serveDocumentOnce(server, jsonPath);
    server.route(uiRoutes(jsonPath));
  },
};

/**
 * Building the document takes seconds of CPU (hapi-swagger describes every schema), time in which
 * the process answers nothing: it is built and finished (finishDocument) on the first fetch, and
 * later fetches get that document before hapi-swagger's handler runs. The routes do not change
 * after start. Other routes pay one comparison of their path in each of the two steps.
 */
function serveDocumentOnce(server: Server, jsonPath: string): void {
  let finished: Record<string, unknown> | undefined;
  server.ext('onPostAuth', (request, h) => (finished && request.route.path === jsonPath ? h.response(finished).takeover() : h.continue));
  server.ext('onPreResponse', (request, h) => {
    const response = request.response;
    if (request.route.path !== jsonPath || !response || 'isBoom' in response) return h.continue;
    finished ??= finishDocument(response.source as Record<string, unknown>);
    return h.response(finished);
  });
}

/** The documentation page, its start script and Swagger UI's files (public, the files cached a day). */
function uiRoutes(jsonPath: string): ServerRoute[] {
  const page = docsPage();
  const init = initScript(jsonPath);
  return [
    {
      method: 'GET',
      path: '/docs',
      options: {
        auth: false,
        app: { access: 'public' },
        handler: (_request, h) => h.response(page).type('text/html; charset=utf-8').header('content-security-policy', CSP),
      },
    },
    {
      method: 'GET',
      path: `${UI_PATH}${INIT}`,
      options: { auth: false, app: { access: 'public' }, handler: (_request, h) => h.response(init).type('text/javascript; charset=utf-8') },
    },
    ...UI_FILES.map((file): ServerRoute => ({
      method: 'GET',
      path: `${UI_PATH}${file}`,
      options: {
        auth: false,
        app: { access: 'public' },
        cache: { expiresIn: 24 * 3600 * 1000, privacy: 'public' },
        handler: { file: { path: join(uiDirectory, file), confine: false } },
      },
    })),
  ];
}
