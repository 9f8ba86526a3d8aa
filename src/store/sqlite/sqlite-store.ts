import type Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import type { Job, JobState } from '../../core/job.js';
import type { Run, RunOutcome, RunSummary } from '../../core/run.js';
import type {
  AuditEntry,
  AuditStamp,
  Fire,
  JobChange,
  JobQuery,
  NewJob,
  NewRun,
  Page,
  RunQuery,
  Store,
  StoreCapabilities,
} from '../store.js';
import { openSqliteConnection } from './connection.js';
import type { SqliteConnectionOptions } from './connection.js';
import { listAudit, listJobs, listRuns } from './list-queries.js';
import { auditToRow, jobToRow, newJobToJob, newRunToRow, rowToJob } from './row-mapping.js';
import { prepareStatements } from './statements.js';
import type { Statements } from './statements.js';
import {
  isUniqueViolation,
  jobCancelled,
  jobNotFound,
  nameTaken,
  runInWrongState,
  runKeyTaken,
  runNotFound,
  versionConflict,
} from './store-errors.js';

const LIVE_NAME_COLUMNS = 'jobs.name';
const RUN_KEY_COLUMNS = 'runs.job_id, runs.scheduled_for, runs.attempt';

export function openSqliteStore(file: string, options: SqliteConnectionOptions = {}): SqliteStore {
  const sqlite = openSqliteConnection(file, options);
  return new SqliteStore(sqlite);
}

/**
 * The Store on one SQLite file. better-sqlite3 is synchronous, so every method does its work in one
 * call (and one transaction) and only the result is asynchronous, as the port asks.
 */
export class SqliteStore implements Store {
  readonly capabilities: StoreCapabilities = { notify: false };
  private readonly db: BetterSQLite3Database;
  private readonly statements: Statements;

  /** Takes a connection from `openSqliteConnection`, whose settings and schema it relies on. */
  constructor(private readonly sqlite: Database.Database) {
    this.db = drizzle({ client: sqlite });
    this.statements = prepareStatements(this.db);
  }

  async createJob(input: NewJob, audit: AuditStamp): Promise<Job> {
    const job = newJobToJob(input);
    this.inWriteTransaction(() => {
      try {
        this.statements.insertJob.run(jobToRow(job));
      } catch (error) {
        if (isUniqueViolation(error, LIVE_NAME_COLUMNS)) throw nameTaken(job.name);
        throw error;
      }
      this.writeAudit(audit, job.id, null, job);
    });
    return job;
  }

  async findJob(ref: string, options: { includeCancelledNames?: boolean } = {}): Promise<Job | null> {
    const row =
      this.statements.jobById.get({ id: ref }) ??
      this.statements.liveJobByName.get({ name: ref }) ??
      (options.includeCancelledNames ? this.statements.newestJobByName.get({ name: ref }) : undefined);
    return row ? rowToJob(row) : null;
  }

  async listJobs(query: JobQuery): Promise<Page<Job>> {
    return listJobs(this.db, query);
  }

  async updateJob(id: string, expectedVersion: number, change: JobChange, audit: AuditStamp): Promise<Job> {
    return this.changeJob(id, expectedVersion, change, audit.at, audit);
  }

  async cancelJob(id: string, expectedVersion: number, now: number, audit: AuditStamp): Promise<Job> {
    return this.changeJob(id, expectedVersion, { state: 'cancelled' }, now, audit);
  }

  async countJobs(state: JobState): Promise<number> {
    return this.statements.countJobsInState.get({ state })?.count ?? 0;
  }

  async dueJobs(until: number, limit: number): Promise<Job[]> {
    return this.statements.dueJobs.all({ until, limit }).map(rowToJob);
  }

  async recordFire(fire: Fire): Promise<Run | null> {
    try {
      return this.inWriteTransaction(() => {
        const advanced = this.statements.advanceNextRun.get({
          id: fire.run.jobId,
          expectedNextRunAt: fire.expectedNextRunAt,
          nextRunAt: fire.nextRunAt,
        });
        if (!advanced) return null;
        return this.insertRunRow(fire.run, advanced.name);
      });
    } catch (error) {
      // Another daemon fired this instant first; the transaction rolled back our advance too.
      if (isUniqueViolation(error, RUN_KEY_COLUMNS)) return null;
      throw error;
    }
  }

  async insertRun(run: NewRun): Promise<Run> {
    return this.inWriteTransaction(() => {
      const job = this.statements.jobNameById.get({ id: run.jobId });
      if (!job) throw jobNotFound(run.jobId);
      try {
        return this.insertRunRow(run, job.name);
      } catch (error) {
        if (isUniqueViolation(error, RUN_KEY_COLUMNS)) {
          throw runKeyTaken(run.jobId, run.scheduledFor, run.attempt);
        }
        throw error;
      }
    });
  }

  async markRunStarted(runId: string, startedAt: number, pid: number | null): Promise<void> {
    this.inWriteTransaction(() => {
      const { changes } = this.statements.markRunStarted.run({ id: runId, startedAt, pid });
      if (changes === 0) this.throwRunNotChangeable(runId, 'running');
    });
  }

  async finishRun(runId: string, outcome: RunOutcome): Promise<Run> {
    return this.inWriteTransaction(() => {
      const { changes } = this.statements.finishRun.run({ id: runId, ...outcome });
      if (changes === 0) this.throwRunNotChangeable(runId, outcome.state);
      const run = this.statements.runById.get({ id: runId });
      if (!run) throw runNotFound(runId);
      return run;
    });
  }

  async markUnfinishedRunsLost(now: number, reason: string): Promise<RunSummary[]> {
    return this.inWriteTransaction(() => {
      const unfinished = this.statements.unfinishedRuns.all();
      if (unfinished.length === 0) return [];
      this.statements.markUnfinishedRunsLost.run({ finishedAt: now, error: reason });
      return unfinished.map((run) => ({ ...run, state: 'lost' as const, finishedAt: now, error: reason }));
    });
  }

  async findRun(id: string): Promise<Run | null> {
    return this.statements.runById.get({ id }) ?? null;
  }

  async listRuns(query: RunQuery): Promise<Page<RunSummary>> {
    return listRuns(this.db, query);
  }

  async listAudit(query: { limit: number; cursor?: string; jobId?: string }): Promise<Page<AuditEntry>> {
    return listAudit(this.db, query);
  }

  async nextFenceEpoch(): Promise<number> {
    return this.inWriteTransaction(() => {
      const row = this.statements.nextFenceEpoch.get();
      if (!row) throw new Error('the fence epoch upsert returned no row');
      return Number(row.value);
    });
  }

  async close(): Promise<void> {
    if (this.sqlite.open) this.sqlite.close();
  }

  /** Updates and cancels share one path: read, check, write the next version, audit. */
  private changeJob(
    id: string,
    expectedVersion: number,
    change: JobChange,
    now: number,
    audit: AuditStamp,
  ): Job {
    return this.inWriteTransaction(() => {
      const row = this.statements.jobById.get({ id });
      if (!row) throw jobNotFound(id);
      const before = rowToJob(row);
      if (before.deletedAt !== null) throw jobCancelled(before.name, id);
      if (before.version !== expectedVersion) {
        throw versionConflict(before.name, expectedVersion, before.version);
      }

      const after = nextVersion(before, change, now);
      try {
        this.statements.updateJob.run({ ...jobToRow(after), expectedVersion });
      } catch (error) {
        if (isUniqueViolation(error, LIVE_NAME_COLUMNS)) throw nameTaken(after.name);
        throw error;
      }
      this.writeAudit(audit, id, before, after);
      return after;
    });
  }

  private insertRunRow(run: NewRun, jobName: string): Run {
    const row = newRunToRow(run);
    this.statements.insertRun.run(row);
    return { ...row, jobName };
  }

  private throwRunNotChangeable(runId: string, wanted: string): never {
    const current = this.statements.runStateById.get({ id: runId });
    if (!current) throw runNotFound(runId);
    throw runInWrongState(runId, current.state, wanted);
  }

  private writeAudit(stamp: AuditStamp, jobId: string, before: Job | null, after: Job): void {
    this.statements.insertAudit.run(auditToRow(stamp, jobId, before, after));
  }

  /**
   * IMMEDIATE takes the write lock up front: a second connection then waits (busy_timeout) instead of
   * failing with SQLITE_BUSY when a read transaction tries to upgrade to a write.
   */
  private inWriteTransaction<T>(work: () => T): T {
    return this.sqlite.transaction(work).immediate();
  }
}

function nextVersion(before: Job, change: JobChange, now: number): Job {
  const state: JobState = change.state ?? before.state;
  const cancelling = state === 'cancelled';
  return {
    ...before,
    ...change.definition,
    state,
    version: before.version + 1,
    updatedAt: now,
    deletedAt: cancelling ? now : null,
    nextRunAt: cancelling ? null : change.nextRunAt === undefined ? before.nextRunAt : change.nextRunAt,
  };
}
