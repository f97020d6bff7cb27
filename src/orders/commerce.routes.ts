/** Every route of issue 3 (catalog, orders, files), listed once in http/routes.ts. */
import type { ServerRoute } from '@hapi/hapi';
import { catalogRoutes } from '../catalog/catalog.routes.js';
import { filesRoutes } from '../files/files.routes.js';
import { ordersRoutes } from './orders.routes.js';
import './orders.doctype.js';

export function commerceRoutes(): ServerRoute[] {
  return [...catalogRoutes, ...ordersRoutes, ...filesRoutes()];
}
