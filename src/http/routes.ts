/** Every HTTP route of the service, in one list. */
import type { ServerRoute } from '@hapi/hapi';
import { healthRoutes } from './health.routes.js';
import { homeRoutes } from './home.routes.js';
import { authRoutes } from '../auth/auth.routes.js';
import { resourceRoutes } from './resource.routes.js';
import { vendorApiRoutes } from '../vendor-api/v1.routes.js';
import { commerceRoutes } from '../orders/commerce.routes.js';

export function routes(): ServerRoute[] {
  return [
    ...homeRoutes,
    ...healthRoutes,
    ...authRoutes,
    ...resourceRoutes,
    // domain routes are appended below by their issues
    ...vendorApiRoutes,
    ...commerceRoutes(),
  ];
}
