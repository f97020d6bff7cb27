/** otcpartner, as the partner registry (src/partners/index.ts) takes it. */
import { otcpartnerConnector } from './otcpartner.connector.js';

export const otcpartner = { connector: otcpartnerConnector };
