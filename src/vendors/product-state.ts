/** The vendor product states of the spec: workflow_state plus the reported status (Disabled = Approved but off the storefront). */
export function reportedStatus(workflowState: string, disabled: boolean): string {
  return workflowState === 'Approved' && disabled ? 'Disabled' : workflowState;
}

/** Listed on the storefront: approved and not disabled by the vendor. */
export function isPublished(workflowState: string, disabled: boolean): boolean {
  return workflowState === 'Approved' && !disabled;
}
