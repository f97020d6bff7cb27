/** The statuses a Sales Order moves through (the spec's names). */
export const STATUS = {
  draft: 'Draft',
  submitted: 'To Deliver and Bill',
  shipped: 'To Bill',
  delivered: 'Completed',
  cancelled: 'Cancelled',
  onHold: 'On Hold',
  closed: 'Closed',
} as const;
