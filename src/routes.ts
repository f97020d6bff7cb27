/**
 * Every HTTP route of the service, in one list (the only one: a domain exports its routes, this
 * file lists them; test/architecture/boundaries.test.ts holds the rule). Part of the composition root:
 * src/modules.ts plugs it into the server (plugRoutes), so src/http, whose route kit the domains
 * use, imports no domain. The docs plugin (http/docs.ts) serves the documentation UI's own files and
 * describes these routes for the OpenAPI document when it is first built (http/openapi.ts).
 */
import type { ServerRoute } from '@hapi/hapi';
import { healthRoutes } from './http/health.routes.js';
import { homeRoutes } from './http/home.routes.js';
import { resourceRoutes } from './http/resource.routes.js';
import { fallbackRoutes } from './http/fallback.routes.js';
import { authRoutes } from './auth/auth.routes.js';
import { catalogRoutes } from './catalog/catalog.routes.js';
import { ordersRoutes } from './orders/orders.routes.js';
import { filesRoutes } from './files/files.routes.js';
import { v1Routes } from './vendor-api/v1.routes.js';
import { vendorRoutes } from './vendors/vendor.routes.js';
import { vendorDashboardRoutes } from './orders/vendor-dashboard.routes.js';
import { partnerWebhookRoutes } from './fulfilment/partner-webhooks.routes.js';
import { salesRoutes } from './sales/sales.routes.js';
import { emrRoutes } from './emr/emr.routes.js';
import { integrationsRoutes } from './integrations/integrations.routes.js';
import { portalRoutes } from './integrations/portal.routes.js';
import { accountRoutes } from './integrations/portal-account.routes.js';
import { portalRecallRoutes } from './integrations/portal-recalls.routes.js';
import { auditRoutes } from './audit/audit.routes.js';
import { recallsRoutes } from './recalls/recalls.routes.js';

export function routes(): ServerRoute[] {
  return [
    ...homeRoutes,
    ...healthRoutes,
    ...authRoutes,
    ...resourceRoutes,
    ...catalogRoutes,
    ...ordersRoutes,
    ...filesRoutes(),
    ...v1Routes,
    ...vendorRoutes,
    ...vendorDashboardRoutes,
    ...salesRoutes,
    ...partnerWebhookRoutes(),
    ...emrRoutes,
    ...integrationsRoutes,
    ...portalRoutes,
    ...accountRoutes,
    ...portalRecallRoutes,
    ...auditRoutes,
    ...recallsRoutes,
    ...fallbackRoutes,
  ];
}
