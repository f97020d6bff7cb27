/**
 * What the accounts domain lets other domains read of `users` inside one statement of theirs (the
 * actor of every authenticated request, an order's owner in its record): the published attributes.
 * Writes and everything else go through users.service.ts (docs/development/database.md).
 */
import { publish } from '../db/sql-names.js';
import { User } from './user.model.js';

export const userRead = publish(User, ['id', 'email', 'fullName', 'roles', 'enabled', 'customer', 'salesPerson', 'vendor']);
