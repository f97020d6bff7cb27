import type { Job } from '../jobs/index.js';
import { syncAllStores } from './store-sync.service.js';

/**
 * The daily storefront syncs (spec: sync_catalog and sync_inventory are daily): every connected
 * store, one process at a time (advisory-lock singleton), catalog at 02:15 and inventory at 02:45
 * server time, after the night's quiet hour; each store's run is also locked on its own, so a
 * "sync now" from the page and the job never run one store twice at once.
 */
export const storeCatalogSyncJob: Job = {
  name: 'storepartner-sync-catalog',
  schedule: '0 15 2 * * *',
  singleton: true,
  run: () => syncAllStores('catalog'),
};

export const storeInventorySyncJob: Job = {
  name: 'storepartner-sync-inventory',
  schedule: '0 45 2 * * *',
  singleton: true,
  run: () => syncAllStores('inventory'),
};

/** Orders of customers' stores become Sales Orders every 10 minutes (an order waits at most that long). */
export const storeOrdersImportJob: Job = {
  name: 'storepartner-import-orders',
  schedule: '0 */10 * * * *',
  singleton: true,
  run: () => syncAllStores('orders'),
};
