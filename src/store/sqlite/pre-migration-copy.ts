import fs from 'node:fs';
import type Database from 'better-sqlite3';
import { pendingMigrations } from './migration-state.js';
import { vacuumInto } from './online-backup.js';

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
