import type { UniqueKey } from '../sql/dialect.js';

/** The unique keys as SQLite names their columns in a violation's message. */
const UNIQUE_KEY_COLUMNS: Record<UniqueKey, string> = {
  liveName: 'jobs.name',
  runKey: 'runs.job_id, runs.scheduled_for, runs.attempt, runs.host',
};

/** better-sqlite3 puts the extended result code on the error; drizzle may wrap it in `cause`. */
function sqliteCode(error: unknown): string | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_')) return code;
  }
  return undefined;
}

function sqliteMessage(error: unknown): string {
  for (let current = error; current instanceof Error; current = current.cause) {
    if ((current as { code?: unknown }).code !== undefined) return current.message;
  }
  return '';
}

/** True for a violation of the unique index behind `key`. */
export function isUniqueViolation(error: unknown, key: UniqueKey): boolean {
  const code = sqliteCode(error);
  return (
    (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') &&
    sqliteMessage(error).endsWith(UNIQUE_KEY_COLUMNS[key])
  );
}
