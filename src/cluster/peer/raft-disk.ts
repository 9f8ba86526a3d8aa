import Database from 'better-sqlite3';
import { SchedError } from '../../core/errors.js';
import { dataJson } from '../../core/consensus/entry-json.js';
import type { RaftDurableState, RaftReady } from '../../core/consensus/raft-node.js';
import type { ForcedVoters, HardState, LogEntry, Snapshot } from '../../core/consensus/raft-messages.js';

/**
 * Its own file and schema, apart from the node's store: the log is what the store is rebuilt from, and
 * unlike the local copy it can never be dropped and read again from elsewhere. An unknown version is
 * refused, never recreated.
 */
const SCHEMA_VERSION = 1;
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS hard_state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    term INTEGER NOT NULL,
    voted_for TEXT
  );
  CREATE TABLE IF NOT EXISTS snapshot (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    last_index INTEGER NOT NULL,
    last_term INTEGER NOT NULL,
    voters TEXT NOT NULL,
    state TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS log_entries (
    log_index INTEGER PRIMARY KEY,
    term INTEGER NOT NULL,
    data TEXT NOT NULL,
    voters TEXT
  );
  CREATE TABLE IF NOT EXISTS member (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    node TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS forced_voters (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    voters TEXT NOT NULL,
    term INTEGER NOT NULL,
    forced_at INTEGER NOT NULL,
    forced_by TEXT NOT NULL
  );
`;

/** What a step asks the host to make durable (see RaftReady), before anything is sent. */
export type DurableChanges<Data, State> = Pick<
  RaftReady<Data, State>,
  'hardState' | 'snapshot' | 'logChanges'
> &
  Partial<Pick<RaftReady<Data, State>, 'forcedSettled'>>;

/** Voters forced by `sched cluster recover --force`, with when and by whom, until the log supersedes them. */
export interface ForcedRecovery extends ForcedVoters {
  at: number;
  by: string;
}

interface EntryRow {
  log_index: number;
  term: number;
  data: string;
  voters: string | null;
}

interface SnapshotRow {
  last_index: number;
  last_term: number;
  voters: string;
  state: string;
}

/**
 * A Raft member's durable state in one SQLite file (created 0600 by the caller): its hard state, its
 * latest snapshot and the log entries after it. Each `persist` is one transaction, durable on disk
 * (synchronous = FULL) before it returns, so a node killed at any instant restarts with everything it
 * acknowledged: a vote it gave, or entries it told a leader it holds.
 */
export class RaftDisk<Data, State> {
  private readonly statements;

  private constructor(
    private readonly db: Database.Database,
    private readonly file: string,
  ) {
    this.statements = {
      hardState: db.prepare<[], { term: number; voted_for: string | null }>(
        'SELECT term, voted_for FROM hard_state WHERE id = 1',
      ),
      saveHardState: db.prepare<[number, string | null]>(
        `INSERT INTO hard_state (id, term, voted_for) VALUES (1, ?, ?)
         ON CONFLICT (id) DO UPDATE SET term = excluded.term, voted_for = excluded.voted_for`,
      ),
      snapshot: db.prepare<[], SnapshotRow>(
        'SELECT last_index, last_term, voters, state FROM snapshot WHERE id = 1',
      ),
      saveSnapshot: db.prepare<[number, number, string, string]>(
        `INSERT INTO snapshot (id, last_index, last_term, voters, state) VALUES (1, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET last_index = excluded.last_index, last_term = excluded.last_term,
           voters = excluded.voters, state = excluded.state`,
      ),
      entries: db.prepare<[], EntryRow>(
        'SELECT log_index, term, data, voters FROM log_entries ORDER BY log_index',
      ),
      dropFrom: db.prepare<[number]>('DELETE FROM log_entries WHERE log_index >= ?'),
      dropThrough: db.prepare<[number]>('DELETE FROM log_entries WHERE log_index <= ?'),
      append: db.prepare<[number, number, string, string | null]>(
        'INSERT INTO log_entries (log_index, term, data, voters) VALUES (?, ?, ?, ?)',
      ),
      node: db.prepare<[], { node: string }>('SELECT node FROM member WHERE id = 1'),
      claimNode: db.prepare<[string]>('INSERT INTO member (id, node) VALUES (1, ?)'),
      forced: db.prepare<[], { voters: string; term: number; forced_at: number; forced_by: string }>(
        'SELECT voters, term, forced_at, forced_by FROM forced_voters WHERE id = 1',
      ),
      saveForced: db.prepare<[string, number, number, string]>(
        `INSERT INTO forced_voters (id, voters, term, forced_at, forced_by) VALUES (1, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET voters = excluded.voters, term = excluded.term,
           forced_at = excluded.forced_at, forced_by = excluded.forced_by`,
      ),
      dropForced: db.prepare<[]>('DELETE FROM forced_voters'),
    };
  }

  static open<Data, State>(file: string): RaftDisk<Data, State> {
    const db = new Database(file);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('busy_timeout = 5000');
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version !== 0 && version !== SCHEMA_VERSION) {
        throw new SchedError(
          'VALIDATION_FAILED',
          `The consensus log ${file} has format ${version}; this sched reads format ${SCHEMA_VERSION}.`,
          {
            hint: 'Run the sched version that wrote it (the log cannot be rebuilt from elsewhere), or restore this node from a backup.',
            details: { file, version, expected: SCHEMA_VERSION },
          },
        );
      }
      db.exec(SCHEMA);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
      return new RaftDisk(db, file);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** What survived: to hand to a new RaftNode (restore the state machine from `snapshot` first). */
  load(): RaftDurableState<Data, State> {
    const hard = this.statements.hardState.get();
    const snapshot = this.statements.snapshot.get();
    const entries = this.statements.entries.all().map((row) => this.entryOf(row));
    const start = snapshot?.last_index ?? 0;
    entries.forEach((entry, position) => {
      if (entry.index !== start + position + 1)
        throw this.damaged(`entry ${start + position + 1} is missing`);
    });
    const forced = this.forcedRecovery();
    return {
      hardState: { term: hard?.term ?? 0, votedFor: hard?.voted_for ?? null },
      forced: forced === null ? null : { voters: forced.voters, term: forced.term },
      snapshot:
        snapshot === undefined
          ? null
          : {
              index: snapshot.last_index,
              term: snapshot.last_term,
              voters: JSON.parse(snapshot.voters) as string[],
              state: JSON.parse(snapshot.state) as State,
            },
      entries,
    };
  }

  /** Makes a step's changes durable, in one transaction, in RaftReady's order. */
  persist(changes: DurableChanges<Data, State>): void {
    const { hardState, snapshot, logChanges, forcedSettled } = changes;
    if (hardState === null && snapshot === null && logChanges === null && !forcedSettled) return;
    this.db.transaction(() => {
      if (hardState !== null) this.writeHardState(hardState);
      if (snapshot !== null) this.writeSnapshot(snapshot);
      if (logChanges !== null) {
        this.statements.dropFrom.run(logChanges.from);
        for (const entry of logChanges.entries) this.writeEntry(entry);
      }
      if (forcedSettled) this.statements.dropForced.run();
    })();
  }

  /**
   * The node this log belongs to (the id it was first started as), recorded on first use: a log must never
   * be carried to another node id, whose votes and entries it does not hold.
   */
  claimNode(node: string): void {
    const owner = this.recordedNode();
    if (owner === null) this.statements.claimNode.run(node);
    else if (owner !== node)
      throw new SchedError(
        'VALIDATION_FAILED',
        `The consensus log ${this.file} is node ${owner}'s; this daemon is ${node}.`,
        {
          hint: `Start it with the address it had (--bind/--advertise ${owner}). To give the host a new address, remove ${owner} from the cluster (\`sched cluster leave ${owner}\`), move this log aside, and join again with --join.`,
          details: { file: this.file, owner, node },
        },
      );
  }

  /** The node this log belongs to; null when no daemon has run on it yet. */
  recordedNode(): string | null {
    return this.statements.node.get()?.node ?? null;
  }

  /** Writes the forced voters of a recovery and the hard state that goes with them, in one transaction. */
  force(hardState: HardState, recovery: ForcedRecovery): void {
    this.db.transaction(() => {
      this.writeHardState(hardState);
      this.statements.saveForced.run(
        JSON.stringify(recovery.voters),
        recovery.term,
        recovery.at,
        recovery.by,
      );
    })();
  }

  /** The forced voters not superseded yet, with when and by whom they were forced; null when none are. */
  forcedRecovery(): ForcedRecovery | null {
    const row = this.statements.forced.get();
    if (row === undefined) return null;
    return {
      voters: JSON.parse(row.voters) as string[],
      term: row.term,
      at: row.forced_at,
      by: row.forced_by,
    };
  }

  /** Keeps a snapshot the host took (RaftNode.compact) and drops the entries it covers. */
  saveSnapshot(snapshot: Snapshot<State>): void {
    this.db.transaction(() => this.writeSnapshot(snapshot))();
  }

  close(): void {
    this.db.close();
  }

  private writeHardState({ term, votedFor }: HardState): void {
    this.statements.saveHardState.run(term, votedFor);
  }

  private writeSnapshot(snapshot: Snapshot<State>): void {
    this.statements.saveSnapshot.run(
      snapshot.index,
      snapshot.term,
      JSON.stringify(snapshot.voters),
      JSON.stringify(snapshot.state),
    );
    this.statements.dropThrough.run(snapshot.index);
  }

  private writeEntry(entry: LogEntry<Data | null>): void {
    const voters = entry.voters === undefined ? null : JSON.stringify(entry.voters);
    this.statements.append.run(entry.index, entry.term, dataJson(entry.data), voters);
  }

  private entryOf(row: EntryRow): LogEntry<Data | null> {
    const entry: LogEntry<Data | null> = {
      index: row.log_index,
      term: row.term,
      data: JSON.parse(row.data) as Data | null,
    };
    if (row.voters !== null) entry.voters = JSON.parse(row.voters) as string[];
    return entry;
  }

  private damaged(what: string): SchedError {
    return new SchedError('VALIDATION_FAILED', `The consensus log ${this.file} is damaged: ${what}.`, {
      hint: 'Restore this node from a backup, or remove it from the cluster and join it again with an empty log.',
      details: { file: this.file },
    });
  }
}
