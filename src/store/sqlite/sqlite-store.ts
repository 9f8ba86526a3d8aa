import type Database from 'better-sqlite3';
import { SqlStore } from '../sql/sql-store.js';
import { openSqliteConnection } from './connection.js';
import { backupDatabase } from './online-backup.js';
import type { SqliteConnectionOptions } from './connection.js';
import type { CommitPacing } from './group-commit.js';
import { SqliteDialect } from './sqlite-dialect.js';
import { SqliteReplica } from './sqlite-replica.js';

export interface SqliteStoreOptions extends SqliteConnectionOptions {
  /** When the writes asked for commit (see GroupCommit); by default each at the next turn. */
  pacing?: CommitPacing;
}

export function openSqliteStore(file: string, options: SqliteStoreOptions = {}): SqliteStore {
  return new SqliteStore(openSqliteConnection(file, options), options.pacing);
}

/** The Store on one SQLite file (see SqliteDialect for how it writes). */
export class SqliteStore extends SqlStore {
  /** This store as a replica of a replicated log (peer mode). */
  readonly replica: SqliteReplica;

  /** Takes a connection from `openSqliteConnection`, whose settings and schema it relies on. */
  constructor(
    private readonly sqlite: Database.Database,
    pacing?: CommitPacing,
  ) {
    const dialect = new SqliteDialect(sqlite, pacing);
    super(dialect);
    this.replica = new SqliteReplica(sqlite, dialect);
  }

  /** A snapshot file being taken in is given up first: its rows stay as they were. */
  override async close(): Promise<void> {
    await this.replica.stop();
    await super.close();
  }

  backupTo(file: string, options: { force: boolean }): Promise<{ file: string; bytes: number }> {
    return backupDatabase(this.sqlite, file, options);
  }
}
