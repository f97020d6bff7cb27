/** shipper, as the partner registry (src/partners/index.ts) takes it. */
import { shipperConnector } from './shipper.connector.js';

export const shipper = { connector: shipperConnector };
