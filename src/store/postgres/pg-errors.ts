import type { UniqueKey } from '../sql/dialect.js';

/** The unique indexes behind the keys, as a violation names them. */
const UNIQUE_KEY_INDEXES: Record<UniqueKey, string> = {
  liveName: 'jobs_live_name_unique',
  runKey: 'runs_instant_unique',
};
const UNIQUE_VIOLATION = '23505';

/**
 * True for a violation of the unique index behind `key`. node-postgres puts the SQLSTATE and the
 * constraint's name on the error; drizzle wraps it in a DrizzleQueryError's `cause`.
 */
export function isUniqueViolation(error: unknown, key: UniqueKey): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    const fields = current as { code?: unknown; constraint?: unknown };
    if (fields.code === UNIQUE_VIOLATION) return fields.constraint === UNIQUE_KEY_INDEXES[key];
  }
  return false;
}
