/**
 * SQLite's own consistency check of a database file, read-only, so it can run beside a live daemon or with
 * none: 'ok', or what SQLite found wrong. Throws when the file cannot be opened as a database.
 */
export async function sqliteQuickCheck(file: string): Promise<string> {
  const { default: Database } = await import('better-sqlite3');
  const database = new Database(file, { readonly: true, fileMustExist: true, timeout: 2_000 });
  try {
    return String(database.pragma('quick_check', { simple: true }));
  } finally {
    database.close();
  }
}
