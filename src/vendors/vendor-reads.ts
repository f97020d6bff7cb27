/**
 * What the vendors domain lets other domains read of `vendor_profiles` inside one statement of
 * theirs (whether a vendor keeps its own SKUs, for an order's record): the published attributes.
 * Everything else goes through the vendors' services (docs/development/database.md).
 */
import { publish } from '../db/sql-names.js';
import { VendorProfile } from './vendor-profile.model.js';

export const vendorProfileRead = publish(VendorProfile, ['name', 'separateSkus']);
