import type Database from 'better-sqlite3';

/** A table's rows as SQLite gives them: text, numbers and nulls (no table here holds blobs). */
export type TableRows = Record<string, Array<Record<string, string | number | null>>>;

const SEQUENCE = 'sqlite_sequence';

/**
 * Kept by the migrations and by each node for itself: never copied from one database to another. The jobs'
 * counts per state are kept by the triggers on `jobs` as its rows are deleted and copied in, so they come
 * out right whatever rows stay; a copy of the sender's would be counted again on top of the triggers' own.
 */
const NOT_COPIED = new Set(['__drizzle_migrations', 'sqlite_stat1', 'sqlite_stat4', 'job_state_counts']);

/** Every user table's rows (and `sqlite_sequence`, so ids handed out next are the same), in one read. */
export function readTableRows(
  sqlite: Database.Database,
  skip: (table: string, row: object) => boolean,
): TableRows {
  return sqlite
    .transaction(() => {
      const rows: TableRows = {};
      for (const table of copiedTables(sqlite)) {
        const all = sqlite.prepare(`SELECT * FROM "${table}"`).all() as TableRows[string];
        rows[table] = all.filter((row) => !skip(table, row));
      }
      return rows;
    })
    .deferred();
}

/**
 * Replaces every user table's rows with `rows` in one transaction (foreign keys checked at its commit),
 * leaving alone the rows `keep` names, which are this database's own.
 */
export function replaceTableRows(
  sqlite: Database.Database,
  rows: TableRows,
  keep: (table: string, row: object) => boolean,
): void {
  const tables = new Set(copiedTables(sqlite));
  sqlite
    .transaction(() => {
      sqlite.pragma('defer_foreign_keys = ON');
      for (const table of tables) {
        const current = sqlite.prepare(`SELECT rowid AS "__rowid", * FROM "${table}"`).all() as Array<
          Record<string, unknown>
        >;
        const remove = sqlite.prepare(`DELETE FROM "${table}" WHERE rowid = ?`);
        for (const { __rowid, ...row } of current) if (!keep(table, row)) remove.run(__rowid);
      }
      // The sequence last: inserting rows with their ids moved it already, and it has no key to replace on.
      const ordered = Object.entries(rows).sort(
        ([a], [b]) => Number(a === SEQUENCE) - Number(b === SEQUENCE),
      );
      for (const [table, list] of ordered) {
        if (!tables.has(table))
          throw new Error(`the snapshot holds a table this database does not have: ${table}`);
        if (table === SEQUENCE) sqlite.prepare(`DELETE FROM ${SEQUENCE}`).run();
        for (const row of list) {
          const columns = Object.keys(row);
          const insert = sqlite.prepare(
            `INSERT OR REPLACE INTO "${table}" (${columns.map((name) => `"${name}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
          );
          insert.run(...columns.map((name) => row[name]));
        }
      }
    })
    .immediate();
}

/** The tables one replica's rows are copied to another in: every user table and `sqlite_sequence`. */
export function copiedTables(sqlite: Database.Database, schema = 'main'): string[] {
  const names = sqlite
    .prepare(`SELECT name FROM "${schema}".sqlite_master WHERE type = 'table' ORDER BY name`)
    .all() as Array<{ name: string }>;
  return names
    .map(({ name }) => name)
    .filter((name) => !NOT_COPIED.has(name) && (!name.startsWith('sqlite_') || name === SEQUENCE));
}
