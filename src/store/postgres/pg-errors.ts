const UNIQUE_VIOLATION = '23505';

/**
 * True for a violation of the unique index or constraint named `constraint`. node-postgres puts the
 * SQLSTATE and the constraint's name on the error; drizzle wraps it in a DrizzleQueryError's `cause`.
 */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    const fields = current as { code?: unknown; constraint?: unknown };
    if (fields.code === UNIQUE_VIOLATION) return fields.constraint === constraint;
  }
  return false;
}
