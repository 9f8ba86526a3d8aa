import fs from 'node:fs';
import type Database from 'better-sqlite3';
import { lastMigrationAt } from './migration-state.js';
import { createEmptyPrivateFile, standAlone } from './online-backup.js';
import { copiedTables } from './table-rows.js';

/** The schema name a snapshot file is attached under while it is checked or restored from. */
const SNAPSHOT = 'snapshot_file';
const SEQUENCE = 'sqlite_sequence';
/** Pages the online backup copies in one turn of the event loop (its own default). */
const PAGES_PER_STEP = 100;

/**
 * Copies the database behind `source` into `file` (created 0600) with SQLite's online backup, a hundred
 * pages a turn of the event loop: writes made meanwhile through the same connection reach the copy too, so
 * it is consistent as of its last commit. The copy is one file in rollback mode, to be attached elsewhere.
 * Given up (and removed) between two steps once `stopped`.
 */
export async function copyDatabaseFile(
  source: Database.Database,
  file: string,
  stopped: () => boolean = () => false,
): Promise<void> {
  createEmptyPrivateFile(file, file);
  try {
    await source.backup(file, {
      progress: () => {
        if (stopped()) throw new Error('the copy was given up: its member stops');
        return PAGES_PER_STEP;
      },
    });
    standAlone(file);
  } catch (error) {
    fs.rmSync(file, { force: true });
    throw error;
  }
}

/** Where a database file's rows differ in shape from this one's: why it cannot be restored from (null: it can). */
export function shapeDifference(sqlite: Database.Database, file: string): string | null {
  try {
    return withAttached(sqlite, file, () => shapeDifferenceOfAttached(sqlite));
  } catch (error) {
    return `not a database this can read (${(error as Error).message})`;
  }
}

/**
 * Replaces every copied table's rows with the file's in one transaction (foreign keys checked at its
 * commit), leaving alone this database's own rows, which `local` names per table as a SQL condition, and
 * not copying the file's own; `after` runs last in the same transaction. The rows move inside SQLite,
 * never through JavaScript. A file whose shape differs is refused (thrown) before anything changes.
 */
export function replaceRowsFromFile(
  sqlite: Database.Database,
  file: string,
  local: (table: string) => string | null,
  after: () => void,
): void {
  withAttached(sqlite, file, () => {
    const difference = shapeDifferenceOfAttached(sqlite);
    if (difference !== null) throw new Error(`the snapshot file cannot be restored from: ${difference}`);
    sqlite
      .transaction(() => {
        sqlite.pragma('defer_foreign_keys = ON');
        // The sequence last: it has no key, and is set whole from the file's.
        const tables = copiedTables(sqlite).sort((a, b) => Number(a === SEQUENCE) - Number(b === SEQUENCE));
        for (const table of tables) {
          const keep = local(table);
          const columns = columnsOf(sqlite, 'main', table)
            .map((name) => `"${name}"`)
            .join(', ');
          sqlite.prepare(`DELETE FROM main."${table}"${keep === null ? '' : ` WHERE NOT (${keep})`}`).run();
          sqlite
            .prepare(
              `INSERT INTO main."${table}" (${columns}) SELECT ${columns} FROM ${SNAPSHOT}."${table}"${keep === null ? '' : ` WHERE NOT (${keep})`}`,
            )
            .run();
        }
        after();
      })
      .immediate();
  });
}

/** A value of the attached file's `meta` table, or null. */
export function metaValueOfFile(sqlite: Database.Database, file: string, key: string): string | null {
  return withAttached(sqlite, file, () => {
    const row = sqlite.prepare(`SELECT value FROM ${SNAPSHOT}.meta WHERE key = ?`).get(key) as
      { value: string } | undefined;
    return row?.value ?? null;
  });
}

function withAttached<T>(sqlite: Database.Database, file: string, use: () => T): T {
  // Attaching a file that is not there would create an empty database.
  if (!fs.existsSync(file)) throw new Error(`${file} does not exist`);
  sqlite.prepare(`ATTACH DATABASE ? AS ${SNAPSHOT}`).run(file);
  try {
    return use();
  } finally {
    sqlite.prepare(`DETACH DATABASE ${SNAPSHOT}`).run();
  }
}

function shapeDifferenceOfAttached(sqlite: Database.Database): string | null {
  const theirs = copiedTables(sqlite, SNAPSHOT);
  const ours = copiedTables(sqlite);
  const [level, fileLevel] = [lastMigrationAt(sqlite), lastMigrationAt(sqlite, SNAPSHOT)];
  if (level !== fileLevel)
    return `its migrations reach ${fileLevel ?? 'none'}, this database's ${level ?? 'none'}`;
  if (ours.join(', ') !== theirs.join(', '))
    return `its tables are ${theirs.join(', ')}, this database's ${ours.join(', ')}`;
  for (const table of ours) {
    const [mine, its] = [columnsOf(sqlite, 'main', table), columnsOf(sqlite, SNAPSHOT, table)];
    if (mine.join(',') !== its.join(','))
      return `its table ${table} has columns ${its.join(', ')}, this database's ${mine.join(', ')}`;
  }
  return null;
}

function columnsOf(sqlite: Database.Database, schema: string, table: string): string[] {
  return (
    sqlite.prepare(`SELECT name FROM pragma_table_info(?, ?)`).all(table, schema) as Array<{ name: string }>
  ).map(({ name }) => name);
}
