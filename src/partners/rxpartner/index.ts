/** rxpartner, as the partner registry (src/partners/index.ts) takes it. */
import { rxpartnerConnector } from './rxpartner.connector.js';

export const rxpartner = { connector: rxpartnerConnector };
