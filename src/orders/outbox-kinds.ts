/**
 * The outbox kinds a Sales Order writes for fulfilment to handle (src/fulfilment registers their
 * handlers): one name each, used by the writer and the handler alike.
 */

/** Routes a submitted order's lines to their partners (the router makes the partner orders). */
export const FULFILMENT_ROUTE_KIND = 'fulfilment_route';

/** Tells the order's fulfilment partners about a cancellation. */
export const FULFILMENT_CANCEL_KIND = 'fulfilment_cancel';
