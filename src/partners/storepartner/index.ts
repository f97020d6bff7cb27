/** storepartner, as the partner registry (src/partners/index.ts) takes it. */
import { storepartnerConnector } from './storepartner.connector.js';

export const storepartner = { connector: storepartnerConnector };
