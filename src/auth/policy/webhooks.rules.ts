/**
 * Who may see, redeliver and test-fire vendor webhook deliveries. A vendor sees and fires only its
 * own (another vendor's delivery is "not found"); operations staff see all and may redeliver.
 */
import type { Actor } from '../actor.js';
import { definePolicy } from './registry.js';
import { hasRole } from './roles.js';

/** The vendor whose deliveries the actor is limited to (a vendor user or token), or null (staff, the system). */
export function webhookVendorOf(actor: Actor): string | null {
  return actor.vendor ?? (actor.type === 'vendor' ? actor.id : null);
}

function isStaff(actor: Actor): boolean {
  return hasRole(actor, 'Operations', 'Marketplace Officer');
}

definePolicy('Webhook Delivery', {
  allow: {
    read: ['Operations', 'Marketplace Officer', 'Vendor'],
    update: ['Operations'],
    test_fire: ['Operations', 'Marketplace Officer', 'Vendor'],
  },
  scope: (actor, t) =>
    isStaff(actor) ? { sql: 'TRUE', bind: {} } : { sql: `${t}.target = $scope_vendor`, bind: { scope_vendor: webhookVendorOf(actor) ?? '' } },
  check: (actor, _action, record) => isStaff(actor) || (webhookVendorOf(actor) !== null && record.vendor === webhookVendorOf(actor)),
});
