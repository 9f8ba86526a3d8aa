import fs from 'node:fs';
import type Database from 'better-sqlite3';
import { and, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import type { Retention, StoreDialect } from '../sql/dialect.js';
import type { RowEncoding } from '../sql/records.js';
import { sqliteRowLimit } from '../sql/row-limit.js';
import { runSync, type Awaitable, type Script } from '../sql/script.js';
import type { Session } from '../sql/session.js';
import { GroupCommit, type CommitPacing } from './group-commit.js';
import { sqliteRetention } from './retention-queries.js';
import { openSqliteSession } from './sqlite-session.js';
import { isUniqueViolation } from './sqlite-errors.js';
import { sqliteTables } from './statements.js';

/** SQLite text holds anything; the labels are kept as JSON text for json_each. */
const SQLITE_ENCODING: RowEncoding = { labels: (labels) => JSON.stringify(labels), text: (value) => value };

/**
 * SQLite under the shared store. Reads run at once. Writes are group-committed (see GroupCommit): the
 * writes asked for together run in one transaction, each in its own savepoint (so one failing write does
 * not undo the others), and each promise settles only after the commit, so an acknowledged write is on
 * disk (synchronous=FULL) without one fsync per request.
 */
export class SqliteDialect implements StoreDialect {
  readonly capabilities = { notify: false };
  readonly tables = sqliteTables;
  readonly encoding = SQLITE_ENCODING;
  readonly session: Session;
  readonly retention: Retention;
  readonly isUniqueViolation = isUniqueViolation;
  readonly rowLimit = sqliteRowLimit;
  private readonly commits: GroupCommit;
  private readonly inode: number;

  /**
   * Takes a connection from `openSqliteConnection`, whose settings and schema it relies on; writes commit
   * as `pacing` says (see GroupCommit).
   */
  constructor(
    private readonly sqlite: Database.Database,
    pacing?: CommitPacing,
  ) {
    this.session = openSqliteSession(drizzle({ client: sqlite }));
    this.inode = fs.statSync(sqlite.name).ino;
    this.commits = new GroupCommit(sqlite, pacing);
    this.retention = sqliteRetention(sqlite, (work) => this.commits.write(work));
  }

  write<T>(work: (session: Session) => Awaitable<T>): Promise<T> {
    return this.commits.write(() => work(this.session)) as Promise<T>;
  }

  /** Writes asked for and not yet committed (they commit together at a later turn of the event loop). */
  get queuedWrites(): number {
    return this.commits.queued;
  }

  /** Commits the writes asked for so far, now. */
  flushWrites(): void {
    this.commits.flush();
  }

  /** Commits no write until released (see GroupCommit.hold). */
  holdWrites(): () => void {
    return this.commits.hold();
  }

  transaction<T>(script: (session: Session) => Script<T>): Promise<T> {
    return this.commits.write(() => runSync(script(this.session)));
  }

  /** json_each rather than a JSON path, so label keys need no quoting (dots, quotes, anything). */
  hasLabels(labels: Record<string, string>) {
    return and(
      ...Object.entries(labels).map(
        ([key, value]) =>
          sql`EXISTS (SELECT 1 FROM json_each(${sqliteTables.jobs.labels}) WHERE key = ${key} AND value = ${value})`,
      ),
    );
  }

  async ping(): Promise<void> {
    // The open handle keeps working on a file that was deleted or replaced; the path is what matters.
    const onDisk = fs.statSync(this.sqlite.name, { throwIfNoEntry: false });
    if (!onDisk || onDisk.ino !== this.inode)
      throw new Error(`the database file ${this.sqlite.name} was moved, replaced or deleted`);
    fs.accessSync(this.sqlite.name, fs.constants.R_OK | fs.constants.W_OK);
    await this.write((session) => session.first(session.statements.readFenceEpoch));
  }

  /** One daemon is the only writer of a SQLite store, so no one else changes its jobs or runs. */
  async watchChanges(): Promise<null> {
    return null;
  }

  /** One daemon is the only writer of a SQLite store: no one else needs telling. */
  eventsStored(): void {}

  /** The events of a SQLite store are this daemon's own: it hears of them as it writes them. */
  async watchEvents(): Promise<null> {
    return null;
  }

  /** The one daemon of a SQLite store runs every run itself. */
  async relayKill(): Promise<void> {}

  async close(): Promise<void> {
    this.commits.flush();
    if (this.sqlite.open) this.sqlite.close();
  }
}
