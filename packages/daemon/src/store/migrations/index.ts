import { sql as initial } from './001-initial.ts';

/**
 * Numbered schema migrations, applied in order; `PRAGMA user_version` records how many ran.
 * Append only: an applied migration is never edited, a change is a new entry.
 */
export const migrations: readonly string[] = [initial];
