import type Database from 'better-sqlite3';
import type { ShardMap } from '../../core/cluster/shard-map.js';
import type { SqliteDialect } from './sqlite-dialect.js';
import { readTableRows, replaceTableRows, type TableRows } from './table-rows.js';

/** The meta keys that are this database's own, never replicated: its fence epoch and how far it applied. */
const APPLIED_INDEX_KEY = 'replicated_log_applied';
/** The shard map in force, as the log last set it (replicated, so a snapshot carries it). */
const SHARD_MAP_KEY = 'replicated_shard_map';
const LOCAL_META_KEYS = new Set(['fence_epoch', APPLIED_INDEX_KEY]);

/** The rows a replica copies from another, and the log index they are as of. */
export interface ReplicaRows {
  appliedIndex: number;
  tables: TableRows;
}

/**
 * A SQLite store as one replica of a replicated log: how far the log has been applied to it (written in
 * the group commit of the writes it applied, so a restart applies nothing twice), and its rows whole, to
 * send to a replica that fell behind or to start over from.
 */
export class SqliteReplica {
  private readonly writeMeta: Database.Statement<[string, string]>;
  private readonly readMeta: Database.Statement<[string], { value: string }>;

  constructor(
    private readonly sqlite: Database.Database,
    private readonly dialect: SqliteDialect,
  ) {
    this.writeMeta = sqlite.prepare(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    );
    this.readMeta = sqlite.prepare('SELECT value FROM meta WHERE key = ?');
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

  /** The shard map the log last set; null before any. */
  shardMap(): ShardMap | null {
    this.dialect.flushWrites();
    const value = this.readMeta.get(SHARD_MAP_KEY)?.value;
    return value === undefined ? null : (JSON.parse(value) as ShardMap);
  }

  /** Records the map in force, in the group commit of the entry that set it. */
  recordShardMap(map: ShardMap): Promise<void> {
    return this.dialect.write(() => {
      this.writeMeta.run(SHARD_MAP_KEY, JSON.stringify(map));
    });
  }

  /** Every replicated row as of now (writes asked for are committed first). */
  copy(): ReplicaRows {
    this.dialect.flushWrites();
    const appliedIndex = this.appliedIndex();
    const tables = readTableRows(this.sqlite, isLocalRow);
    return { appliedIndex, tables };
  }

  /** Becomes `rows` as of their index, in one transaction; this replica's own rows stay. */
  replaceWith(rows: ReplicaRows): void {
    this.dialect.flushWrites();
    replaceTableRows(this.sqlite, rows.tables, isLocalRow);
    this.writeMeta.run(APPLIED_INDEX_KEY, String(rows.appliedIndex));
  }
}

function isLocalRow(table: string, row: object): boolean {
  return table === 'meta' && LOCAL_META_KEYS.has((row as { key?: string }).key ?? '');
}
