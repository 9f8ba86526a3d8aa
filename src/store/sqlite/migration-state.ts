import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';

export interface JournalEntry {
  tag: string;
  /** drizzle's `folderMillis`: a migration is pending when the database's last one is older. */
  when: number;
}

/**
 * Whether the database has a migration this release does not know: a newer release wrote it, and this one
 * would not bring it up to date but misread it.
 */
export function isFromNewerRelease(sqlite: Database.Database, migrationsFolder: string): boolean {
  const last = lastMigrationAt(sqlite);
  const known = readJournal(migrationsFolder).at(-1);
  return last !== null && known !== undefined && last > known.when;
}

/** The migrations of this release that the database has not had yet; none for a new database. */
export function pendingMigrations(sqlite: Database.Database, migrationsFolder: string): JournalEntry[] {
  const last = lastMigrationAt(sqlite);
  if (last === null) return [];
  return readJournal(migrationsFolder).filter((entry) => entry.when > last);
}

/** When the last migration applied to the database (or one attached as `schema`) was made; null for a new one. */
export function lastMigrationAt(sqlite: Database.Database, schema = 'main'): number | null {
  const applied = sqlite
    .prepare(`SELECT 1 FROM "${schema}".sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'`)
    .get();
  if (applied === undefined) return null;
  const last = sqlite.prepare(`SELECT max(created_at) AS at FROM "${schema}".__drizzle_migrations`).get() as {
    at: number | string | null;
  };
  return last.at === null ? null : Number(last.at);
}

function readJournal(migrationsFolder: string): JournalEntry[] {
  const journal = JSON.parse(
    fs.readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8'),
  ) as { entries: JournalEntry[] };
  return journal.entries;
}
