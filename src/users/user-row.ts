import type { Role } from './roles.js';

/** A user as services read and answer it (wire names): who it is, its roles, and what it acts for. */
export interface UserRow {
  id: string;
  email: string;
  full_name: string;
  roles: Role[];
  enabled: boolean;
  customer: string | null;
  sales_person: string | null;
  vendor: string | null;
}
