import type { RunInFlight } from '../../core/policy/fire-overlap.js';
import type { Run } from '../../core/run.js';
import type { StoredOccurrence } from '../ledger-rows.js';
import type { QueryBuilder, QueryChain, Statement } from './query-builder.js';
import type { JobRecord, RunRecord } from './records.js';
import type { outcomeToRow } from './row-mapping.js';
import type { Awaitable } from './script.js';
import type { Statements } from './statements.js';
import type { EventRow } from './tables.js';

/** A fire's compare-and-set on its job's next instant. */
export interface NextRunAdvance {
  id: string;
  expectedNextRunAt: number;
  nextRunAt: number | null;
}

/**
 * A run's outcome as the finishRun statement writes it (see outcomeToRow), with its start when the end
 * brings it (see RunEnd.startedAt), else null.
 */
export type FinishingRun = { id: string; startedAt: number | null } & ReturnType<typeof outcomeToRow>;

/**
 * A run that started: its pid (null when it has none, an HTTP run) and the instant it started, which
 * becomes its `startedAt`: the spawn, after the commit that let it start, so after the end of any run it
 * waited for (a start stamped at the fire or claim may precede that end by the time the write waited).
 * Only a start with a pid changes the run's row (a restart must find the process); one without stores its
 * event alone, and its instant comes with the run's end (RunEnd.startedAt): a row update fewer per run.
 */
export interface RunPid {
  runId: string;
  pid: number | null;
  startedAt: number;
}

/** The runs of one job on one host (every-host runs have their node's; others ''). */
export interface RunsKey {
  jobId: string;
  host: string;
}

// Interfaces such as Run have no index signature, and drizzle only reads the placeholders' names from them.
export type Params = object;

/**
 * One connection of a dialect, inside or outside a transaction: it runs the shared statements and the few
 * that each dialect writes its own way. SQLite answers at once, PostgreSQL with promises.
 */
export interface Session {
  readonly statements: Statements;
  first<Row>(statement: Statement<Row>, params?: Params): Awaitable<Row | undefined>;
  all<Row>(statement: Statement<Row>, params?: Params): Awaitable<Row[]>;
  run(statement: Statement<unknown>, params?: Params): Awaitable<void>;
  /**
   * A job by id, else a live job by that name. PostgreSQL asks once (a round trip saved); SQLite asks
   * twice, two index lookups being cheaper than its plan of the one query with OR.
   */
  jobByRef(ref: string): Awaitable<JobRecord | undefined>;
  /** A query built per call, for lists whose filters vary. */
  query<Row>(build: (db: QueryBuilder) => QueryChain): Awaitable<Row[]>;
  /**
   * Records an outcome if the run is still unfinished and returns the finished run with its job's name;
   * undefined when the run is missing or already final.
   */
  finishRun(values: FinishingRun): Awaitable<RunRecord | undefined>;
  /** finishRun of many runs, in one statement where the dialect can: the runs it finished, in no order. */
  finishRuns(values: readonly FinishingRun[]): Awaitable<RunRecord[]>;
  /** Ledger records; a record of an instant already decided is dropped (the first decision stands). */
  insertOccurrences(rows: StoredOccurrence[]): Awaitable<void>;
  /** Tells other daemons, at commit, that a job was written; nothing where no one else writes. */
  announceJobChange(jobId: string): Awaitable<void>;
  /** Tells other daemons, at commit, that a run waits to start (its node may be another); likewise. */
  announceWaitingRun(runId: string): Awaitable<void>;
  /** Writes an outbox row and returns its id; PostgreSQL also announces the id to every node, at commit. */
  insertEvent(row: EventRow): Awaitable<number>;
  /** Stores a run's pid, when it has one, and the event that says it started, in one statement where it can. */
  startRun(start: RunPid, event: EventRow): Awaitable<number>;
  /** startRun of many runs, in one statement where the dialect can; the events' ids in their order. */
  startRuns(pids: readonly RunPid[], events: readonly EventRow[]): Awaitable<number[]>;
  /**
   * The `advanceNextRun` compare-and-set of many jobs in one statement where the dialect can: the jobs
   * whose next instant moved, with their names (each keeps its row lock until the commit).
   */
  advanceNextRuns(advances: readonly NextRunAdvance[]): Awaitable<{ id: string; name: string }[]>;
  /** `runsInFlight` of many (job, host) keys in one statement where the dialect can, each run with its key. */
  runsInFlightOf(keys: readonly RunsKey[]): Awaitable<(RunInFlight & RunsKey)[]>;
  /** New runs, as the `insertRun` statement writes one, in one statement where the dialect can. */
  insertRuns(runs: readonly Run[]): Awaitable<void>;
  /** Outbox rows, as insertEvent writes one, in one statement where the dialect can; their ids in order. */
  insertEvents(rows: readonly EventRow[]): Awaitable<number[]>;
  /** Refuses (FENCED) a fire from a shard map that is no longer in force; nothing where there is no map. */
  assertMapInForce(fence: { term: number; publishedAt: number }): Awaitable<void>;
}
