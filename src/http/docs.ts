/**
 * The API documentation: hapi-swagger builds the OpenAPI document from the route schemas
 * (/openapi.json) and /docs is a static Swagger UI page over it. The page is served here rather
 * than by hapi-swagger's own page, which needs view templates and hooks a server-wide onPostHandler
 * step into every request of the API to decorate the one view it renders.
 *
 * hapi-swagger itself loads on the first fetch of the document: its modules cost a process about
 * 0.6 s of CPU, which a server that never serves the document (every test file's app) does not pay
 * (docs/decisions.md, "The test suite's time"). The route is declared here, with the options
 * hapi-swagger gives its own; its handler is hapi-swagger's, taken from the plugin's registration.
 * The routes' documentation (names, responses, security: describeRoutes in http/openapi.ts) is made
 * on that first fetch too, and put where hapi-swagger reads it, the registered routes' settings: it
 * describes every schema, about 0.8 s of CPU a server would otherwise pay at its creation.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Inert from '@hapi/inert';
import type { Lifecycle, Plugin, PluginSpecificConfiguration, Request, RequestRoute, RouteOptions, ServerRoute } from '@hapi/hapi';
import { describeRoutes, finishDocument, securitySchemes } from './openapi.js';

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

const JSON_PATH = '/openapi.json';

/** hapi-swagger's options; it builds the document from them and from the server's route table. */
const SWAGGER_OPTIONS = {
  info: {
    title: TITLE,
    version: '1',
    description: 'Healthcare supply marketplace: catalog, Sales Orders, vendor interface v1. Errors: { exc_type, exception, _server_messages }.',
  },
  OAS: 'v3.0',
  jsonPath: JSON_PATH,
  documentationPage: false,
  swaggerUI: false,
  grouping: 'tags',
  auth: false,
  // every schema by its label (http/openapi.ts names them all); security is set per operation there too
  definitionPrefix: 'useLabel',
  securityDefinitions: securitySchemes,
};

/** `routes`: the service's routes as the server registers them (src/routes.ts), described on the document's first build. */
export const docsPlugin: Plugin<{ routes: ServerRoute[] }> = {
  name: 'svc-docs',
  async register(server, options) {
    await server.register(Inert);
    server.route([documentRoute(options.routes), ...uiRoutes(JSON_PATH)]);
  },
};

/**
 * Describes the API routes (http/openapi.ts) and gives each registered route its description under
 * `plugins['hapi-swagger']`, where hapi-swagger reads it (hapi keeps a copy of each route's options,
 * made when it was registered).
 */
function describeRegistered(table: RequestRoute[], routes: ServerRoute[]): void {
  const registered = new Map(table.map((route) => [`${route.method} ${route.path}`, route]));
  for (const route of describeRoutes(routes)) {
    const options = route.options as RouteOptions | undefined;
    if (!options?.tags?.includes('api')) continue;
    for (const method of [route.method].flat()) {
      const target = registered.get(`${method.toLowerCase()} ${route.path}`);
      if (target) target.settings.plugins = { ...target.settings.plugins, 'hapi-swagger': options.plugins?.['hapi-swagger'] };
    }
  }
}

/**
 * The document's route, as hapi-swagger declares it (public, no access declaration, left out of the
 * document). Building the document takes seconds of CPU (hapi-swagger describes every schema), time
 * in which the process answers nothing: it is built and finished (finishDocument) on the first fetch,
 * and later fetches get that document. The routes do not change after start.
 */
function documentRoute(routes: ServerRoute[]): ServerRoute {
  let finished: Promise<Record<string, unknown>> | undefined;
  return {
    method: 'GET',
    path: JSON_PATH,
    options: {
      auth: false,
      tags: [],
      // hapi-swagger's own mark for a route left out of the document (its types only know an object)
      plugins: { 'hapi-swagger': false } as unknown as PluginSpecificConfiguration,
      handler: (request) => {
        finished ??= buildDocument(request, routes).catch((err: unknown) => {
          finished = undefined; // a failed build is retried by the next fetch
          throw err;
        });
        return finished;
      },
    },
  };
}

const importSwagger = () => import('hapi-swagger');
let swagger: ReturnType<typeof importSwagger> | undefined;

/** hapi-swagger, loaded once: by the first fetch of the document, or ahead of it by the page that fetches it. */
function loadSwagger(): ReturnType<typeof importSwagger> {
  swagger ??= importSwagger();
  return swagger;
}

/** Loads hapi-swagger and runs the handler its registration declares for the document's route. */
async function buildDocument(request: Request, routes: ServerRoute[]): Promise<Record<string, unknown>> {
  const { default: HapiSwagger } = await loadSwagger();
  describeRegistered(request.server.table(), routes);
  let handler: Lifecycle.Method | undefined;
  // the plugin's registration only validates its options and declares its route (no view, no UI: both off)
  const declaring = {
    route: (routes: ServerRoute | ServerRoute[]) => {
      const route = [routes].flat().find((r) => r.path === JSON_PATH);
      handler = (route?.options as { handler?: Lifecycle.Method } | undefined)?.handler;
    },
    expose: () => undefined,
    log: () => undefined,
    methods: {},
  };
  await (HapiSwagger as unknown as { plugin: { register(server: unknown, options: unknown): unknown } }).plugin.register(declaring, SWAGGER_OPTIONS);
  if (!handler) throw new Error(`hapi-swagger declared no ${JSON_PATH} route`);
  const document = (await handler.call(null, request, undefined as never)) as Record<string, unknown>;
  return finishDocument(document);
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
        handler: (_request, h) => {
          void loadSwagger().catch(() => undefined); // while the browser loads Swagger UI, which then fetches the document
          return h.response(page).type('text/html; charset=utf-8').header('content-security-policy', CSP);
        },
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
