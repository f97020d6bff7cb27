/** A recall's classes and statuses: plain values the CLI's flag parsers share without loading the model. */
export const RECALL_CLASSES = ['Class I', 'Class II', 'Class III'] as const;
export type RecallClass = (typeof RECALL_CLASSES)[number];
export const RECALL_STATUS = { pending: 'Pending Approval', open: 'Open', closed: 'Closed' } as const;
