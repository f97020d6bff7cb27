/** The statuses of a partner order; without imports, so the CLI can list them without loading the model. */
export const PARTNER_ORDER_STATUSES = ['pending', 'retrying', 'awaiting_configuration', 'created', 'failed'] as const;
