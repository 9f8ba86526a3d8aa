import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { copyBeforeMigrating } from './pre-migration-copy.js';

// Both src/store/sqlite/ (under vitest) and dist/store/sqlite/ sit three levels below the package root.
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../../drizzle/sqlite', import.meta.url));

export interface SqliteConnectionOptions {
  /** FULL (the default) survives power loss; NORMAL may lose the last commits but never corrupts. */
  synchronous?: 'FULL' | 'NORMAL';
  /** Pages the write-ahead log grows to before a commit copies it into the database (SQLite's default: 1,000). */
  checkpointEveryPages?: number;
}

/** Opens the file with the settings the store relies on and brings its schema up to date. */
export function openSqliteConnection(file: string, options: SqliteConnectionOptions = {}): Database.Database {
  return opened(file, options, (sqlite) => {
    copyBeforeMigrating(sqlite, MIGRATIONS_FOLDER);
    migrate(drizzle({ client: sqlite }), { migrationsFolder: MIGRATIONS_FOLDER });
  });
}

/**
 * Opens a second connection, with the same settings, to a database a store has opened (and so brought up to
 * date): for work done aside, in a worker thread.
 */
export function openSecondSqliteConnection(file: string): Database.Database {
  return opened(file, {}, () => undefined);
}

function opened(
  file: string,
  options: SqliteConnectionOptions,
  migrated: (sqlite: Database.Database) => void,
): Database.Database {
  const sqlite = new Database(file);
  try {
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    // The rows INSERT OR REPLACE removes (a snapshot's rows are written so) fire delete triggers only with
    // this on, and the triggers that count jobs per state must see every row that leaves.
    sqlite.pragma('recursive_triggers = ON');
    // 32 MiB: the pages creates and fires touch in a table of 1,000,000 jobs (the tops of its indexes and
    // their newest leaves) stay cached; at 16 MiB a create still read 1.3 pages, as at 64. More only kept
    // what a count of every job walked (50 MiB of one index; counts are read from job_state_counts now).
    sqlite.pragma('cache_size = -32768');
    if (options.checkpointEveryPages !== undefined)
      sqlite.pragma(`wal_autocheckpoint = ${Math.max(1, Math.floor(options.checkpointEveryPages))}`);
    migrated(sqlite);
    // After migrating, whose index builds may sort more than memory should hold. Each group-committed
    // write has a savepoint, whose journal of the pages the write changes (a create's pass the 64 KiB SQLite
    // keeps in memory) went to a temp file: about 40 of a create's 48 write calls. In memory, it is
    // dropped at each RELEASE.
    sqlite.pragma('temp_store = MEMORY');
    return sqlite;
  } catch (error) {
    sqlite.close();
    throw error;
  }
}
