import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { builtModuleUrl } from '../../runtime/built-module.js';
import type { ProposerSession } from '../../core/peer/proposer-session.js';
import type { SqliteDialect } from './sqlite-dialect.js';
import { copyDatabaseFile, metaValueOfFile, replaceRowsFromFile, shapeDifference } from './replica-file.js';
import { readTableRows, replaceTableRows, type TableRows } from './table-rows.js';

/** The meta keys that are this database's own, never replicated: its fence epoch and how far it applied. */
const APPLIED_INDEX_KEY = 'replicated_log_applied';
/** What the log keeps beside the tables, as meta rows (replicated, so a snapshot carries them). */
export type ReplicatedValueKey = 'replicated_shard_map' | 'replicated_members';
/** How many times this copy was kept in place: a value that changes, so keeping it is a commit that syncs. */
const KEPT_KEY = 'replica_kept';
const LOCAL_META_KEYS = new Set(['fence_epoch', APPLIED_INDEX_KEY, KEPT_KEY]);
const UPSERT_META =
  'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value';

/** What the worker that takes a snapshot file in is given (see replica-restore-worker.ts). */
export interface RestoreAside {
  database: string;
  file: string;
}

/** The rows a replica copies from another, and the log index they are as of. */
export interface ReplicaRows {
  appliedIndex: number;
  tables: TableRows;
}

/**
 * A snapshot that is this replica itself: its rows were on disk through `appliedIndex` when it was taken,
 * so the log before that index may go without a copy of them being written anywhere else.
 */
export interface ReplicaInPlace {
  appliedIndex: number;
  inPlace: true;
}

/** A copy of a replica's database file, sent in parts (see SnapshotSending): named, sized and hashed. */
export interface SnapshotFile {
  id: string;
  bytes: number;
  sha256: string;
}

/**
 * A snapshot sent as a copy of the leader's database file, as of `appliedIndex`. `received` is where this
 * member holds the file, whole and checked; it is set here, never taken from the wire.
 */
export interface ReplicaFile {
  appliedIndex: number;
  file: SnapshotFile;
  received?: string;
}

/**
 * What a snapshot of the replicated log holds: the rows whole (sent by an older version, or kept by one),
 * this replica, or a copy of a replica's file.
 */
export type ReplicaState = ReplicaRows | ReplicaInPlace | ReplicaFile;

/**
 * A SQLite store as one replica of a replicated log: how far the log has been applied to it (written in
 * the group commit of the writes it applied, so a restart applies nothing twice), and its rows whole, to
 * send to a replica that fell behind or to start over from.
 */
export class SqliteReplica {
  private readonly writeMeta: Database.Statement<[string, string]>;
  private readonly readMeta: Database.Statement<[string], { value: string }>;
  private readonly writeSession: Database.Statement<[string, number, string, number, number]>;
  /** The worker taking a snapshot file in, while one does. */
  private restoring: Worker | null = null;
  /** Set once the store closes: a file being taken in then is given up. */
  private stopped = false;

  constructor(
    private readonly sqlite: Database.Database,
    private readonly dialect: SqliteDialect,
  ) {
    this.writeMeta = sqlite.prepare(UPSERT_META);
    this.readMeta = sqlite.prepare('SELECT value FROM meta WHERE key = ?');
    this.writeSession = sqlite.prepare(
      'INSERT OR REPLACE INTO proposer_sessions (proposer, through, beyond, latest_at, last_index) VALUES (?, ?, ?, ?, ?)',
    );
  }

  /** Writes asked for and not yet committed: a replicated write must be asked for at once, in log order. */
  get queuedWrites(): number {
    return this.dialect.queuedWrites;
  }

  /** The index of the last log entry whose writes are committed here (0: none). */
  appliedIndex(): number {
    this.dialect.flushWrites();
    return Number(this.readMeta.get(APPLIED_INDEX_KEY)?.value ?? 0);
  }

  /**
   * Records `index` as applied, in the same group commit as the writes asked for before it (asked for in
   * the same turn of the event loop, they commit in one transaction or not at all).
   */
  recordApplied(index: number): Promise<void> {
    return this.dialect.write(() => {
      this.writeMeta.run(APPLIED_INDEX_KEY, String(index));
    });
  }

  /** A value the log keeps beside the store's tables (the shard map, the members), as last set; null before. */
  value<T>(key: ReplicatedValueKey): T | null {
    this.dialect.flushWrites();
    const value = this.readMeta.get(key)?.value;
    return value === undefined ? null : (JSON.parse(value) as T);
  }

  /** Records such a value, in the group commit of the entry that set it. */
  recordValue(key: ReplicatedValueKey, value: unknown): Promise<void> {
    return this.dialect.write(() => {
      this.writeMeta.run(key, JSON.stringify(value));
    });
  }

  /** The proposers' sessions, as of the entries applied. */
  sessions(): ProposerSession[] {
    this.dialect.flushWrites();
    const rows = this.sqlite
      .prepare('SELECT proposer, through, beyond, latest_at, last_index FROM proposer_sessions')
      .all() as Array<{
      proposer: string;
      through: number;
      beyond: string;
      latest_at: number;
      last_index: number;
    }>;
    return rows.map((row) => ({
      proposer: row.proposer,
      through: row.through,
      beyond: JSON.parse(row.beyond) as ProposerSession['beyond'],
      latestAt: row.latest_at,
      lastIndex: row.last_index,
    }));
  }

  /** Records a proposer's session, in the group commit of the entry that changed it. */
  recordSession(session: ProposerSession): Promise<void> {
    return this.dialect.write(() => {
      const { proposer, through, beyond, latestAt, lastIndex } = session;
      this.writeSession.run(proposer, through, JSON.stringify(beyond), latestAt, lastIndex);
    });
  }

  /** Forgets the sessions of the proposers none of whose commands was applied after `index`. */
  forgetSessionsIdleSince(index: number): Promise<void> {
    return this.dialect.write(() => {
      this.sqlite.prepare('DELETE FROM proposer_sessions WHERE last_index < ?').run(index);
    });
  }

  /** Every replicated row as of now (writes asked for are committed first). */
  copy(): ReplicaRows {
    const appliedIndex = this.appliedIndex();
    const tables = readTableRows(this.sqlite, isLocalRow);
    return { appliedIndex, tables };
  }

  /** Becomes `rows` as of their index, in one transaction; this replica's own rows stay. */
  replaceWith(rows: ReplicaRows): void {
    this.dialect.flushWrites();
    // One transaction: rows of one index with the applied index of another would apply entries twice.
    this.sqlite.transaction(() => {
      replaceTableRows(this.sqlite, rows.tables, isLocalRow);
      this.writeMeta.run(APPLIED_INDEX_KEY, String(rows.appliedIndex));
    })();
  }

  /**
   * Copies this database into `file` (0600) a few pages a turn, for a snapshot sent as a file; resolves to
   * the index the copy is as of. Given up between two steps once `stopped`.
   */
  async copyTo(file: string, stopped?: () => boolean): Promise<number> {
    await copyDatabaseFile(this.sqlite, file, stopped);
    return Number(metaValueOfFile(this.sqlite, file, APPLIED_INDEX_KEY) ?? 0);
  }

  /** Why the database `file` cannot replace this replica's rows (another schema, not a database); null when it can. */
  refusalOf(file: string): string | null {
    const difference = shapeDifference(this.sqlite, file);
    if (difference !== null) return difference;
    if (metaValueOfFile(this.sqlite, file, APPLIED_INDEX_KEY) === null)
      return 'it says of no log index how far it is';
    return null;
  }

  /**
   * Becomes the replica copied into `file`, as of its applied index (resolved to), in one transaction of
   * SQLite's own: this replica's own rows stay, the file's own are not taken. The rows move on a connection of
   * a worker thread, so the event loop goes on (a copy of 500,000 runs takes seconds); reads meanwhile see the
   * rows as they were, and writes asked for wait until it is over (this connection must not wait for the
   * write lock the worker holds: that would block the loop). A crash before it is over leaves the rows as
   * they were.
   */
  async replaceWithFile(file: string): Promise<number> {
    if (this.restoring !== null) throw new Error('a snapshot file is being taken in already');
    this.dialect.flushWrites();
    const aside: RestoreAside = { database: this.sqlite.name, file };
    const url = builtModuleUrl(import.meta.url, 'replica-restore-worker.js');
    const release = this.dialect.holdWrites();
    let worker: Worker | null = null;
    try {
      worker = this.restoring = new Worker(url, { workerData: aside });
      return await outcomeOf(worker);
    } catch (error) {
      if (worker === null || !this.stopped) throw error;
      throw new RestoreGivenUp();
    } finally {
      this.restoring = null;
      release();
    }
  }

  /** Whether a snapshot file is being taken in now: writes wait for it. */
  get takingIn(): boolean {
    return this.restoring !== null;
  }

  /** Gives up a file being taken in (its transaction is rolled back: the rows stay as they were). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.restoring?.terminate();
  }

  /**
   * Puts every write committed so far on disk, however the connection syncs its commits (a replica may
   * commit without syncing: the log it applies is synced), and says through which index: a snapshot that
   * is this replica itself. One synced commit is enough: the write-ahead log is written in order, and what
   * a checkpoint took from it was synced in the database file. The commit must change a page: one that
   * writes a value already there writes nothing, and syncs nothing.
   */
  keepInPlace(): ReplicaInPlace {
    const appliedIndex = this.appliedIndex();
    const synchronous = this.sqlite.pragma('synchronous', { simple: true }) as number;
    this.sqlite.pragma('synchronous = FULL');
    try {
      const kept = Number(this.readMeta.get(KEPT_KEY)?.value ?? 0);
      this.sqlite.transaction(() => this.writeMeta.run(KEPT_KEY, String(kept + 1)))();
    } finally {
      this.sqlite.pragma(`synchronous = ${synchronous}`);
    }
    return { appliedIndex, inPlace: true };
  }
}

/** A snapshot file being taken in was given up as the store closed: no failure of the copy. */
export class RestoreGivenUp extends Error {
  constructor() {
    super('taking the snapshot file in was given up as the store closed; its rows are as they were');
  }
}

/**
 * Replaces the replica's rows on `sqlite` with those of the database `file` (see replaceWithFile), in one
 * transaction, and returns the log index they are as of.
 */
export function takeRowsOfFile(sqlite: Database.Database, file: string): number {
  const appliedIndex = Number(metaValueOfFile(sqlite, file, APPLIED_INDEX_KEY) ?? 0);
  const localKeys = [...LOCAL_META_KEYS].map((key) => `'${key}'`).join(', ');
  replaceRowsFromFile(
    sqlite,
    file,
    (table) => (table === 'meta' ? `key IN (${localKeys})` : null),
    () => sqlite.prepare(UPSERT_META).run(APPLIED_INDEX_KEY, String(appliedIndex)),
  );
  return appliedIndex;
}

/** What a worker posted, or why it posted nothing (its error, or its exit). */
function outcomeOf(worker: Worker): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) =>
      reject(new Error(`the worker taking a snapshot file in exited (code ${code})`)),
    );
  });
}

function isLocalRow(table: string, row: object): boolean {
  return table === 'meta' && LOCAL_META_KEYS.has((row as { key?: string }).key ?? '');
}
