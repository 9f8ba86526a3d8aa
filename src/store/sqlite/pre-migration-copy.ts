import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { vacuumInto } from './online-backup.js';

interface JournalEntry {
  tag: string;
  /** drizzle's `folderMillis`: a migration is pending when the database's last one is older. */
  when: number;
}

/**
 * Before a migration changes a database that already holds jobs, copies it to
 * `<db>.before-<first pending migration>.bak` beside it, so a release that goes wrong can be undone with
 * `sched restore`. A new database, or one with nothing pending, is not copied; a copy already there (an
 * earlier attempt at the same migration) is kept, since it is the state before any attempt.
 */
export function copyBeforeMigrating(sqlite: Database.Database, migrationsFolder: string): string | null {
  const pending = pendingMigrations(sqlite, migrationsFolder);
  if (pending.length === 0) return null;
  const copy = `${sqlite.name}.before-${pending[0]!.tag}.bak`;
  if (!fs.existsSync(copy)) vacuumInto(sqlite, copy);
  return copy;
}

function pendingMigrations(sqlite: Database.Database, migrationsFolder: string): JournalEntry[] {
  const applied = sqlite
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'")
    .get();
  if (applied === undefined) return [];
  const last = sqlite.prepare('SELECT max(created_at) AS at FROM __drizzle_migrations').get() as {
    at: number | string | null;
  };
  if (last.at === null) return [];
  const journal = JSON.parse(
    fs.readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8'),
  ) as { entries: JournalEntry[] };
  return journal.entries.filter((entry) => entry.when > Number(last.at));
}
