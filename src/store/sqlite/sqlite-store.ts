import fs from 'node:fs';
import type Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import type { Job, JobState } from '../../core/job.js';
import type { LedgerEntry } from '../../core/ledger/entry.js';
import type { Run, RunOutcome, RunState, RunSummary } from '../../core/run.js';
import type {
  AuditEntry,
  AuditStamp,
  DependencyEdge,
  Fire,
  FinishedRun,
  IdempotencyClaim,
  IdempotencyRecord,
  JobChange,
  JobQuery,
  NewJob,
  NewOccurrence,
  NewRun,
  OccurrenceQuery,
  Page,
  RunQuery,
  Store,
  StoreCapabilities,
} from '../store.js';
import { idPrefixRange } from '../ids.js';
import { openSqliteConnection } from './connection.js';
import { GroupCommit } from './group-commit.js';
import type { SqliteConnectionOptions } from './connection.js';
import { listOccurrences, listRunsByInstant } from './ledger-queries.js';
import { listAudit, listJobs, listRuns } from './list-queries.js';
import {
  deleteAuditBefore,
  deleteCancelledJobsWithoutRuns,
  deleteRunsBeyond,
  deleteRunsFinishedBefore,
} from './retention-queries.js';
import {
  auditToRow,
  dependencyRows,
  jobToRow,
  newJobToJob,
  newRunToRow,
  occurrenceToRow,
  rowToJob,
  rowToRun,
} from './row-mapping.js';
import { prepareStatements } from './statements.js';
import type { Statements } from './statements.js';
import {
  idempotencyKeyTaken,
  isUniqueViolation,
  runAlreadyRetried,
  jobCancelled,
  jobNotFound,
  nameTaken,
  runInWrongState,
  runKeyTaken,
  runNotFound,
  versionConflict,
} from '../store-errors.js';
import { nextVersion } from '../job-versions.js';

const LIVE_NAME_COLUMNS = 'jobs.name';
const IDEMPOTENCY_KEY_COLUMNS = 'idempotency_keys.key';

const RUN_KEY_COLUMNS = 'runs.job_id, runs.scheduled_for, runs.attempt, runs.host';

export function openSqliteStore(file: string, options: SqliteConnectionOptions = {}): SqliteStore {
  const sqlite = openSqliteConnection(file, options);
  return new SqliteStore(sqlite);
}

/**
 * The Store on one SQLite file. Reads run at once. Writes are group-committed: every write asked for
 * in one turn of the event loop runs in one transaction, each in its own savepoint (so one failing
 * write does not undo the others), and each promise settles only after the commit, so an
 * acknowledged write is on disk (synchronous=FULL) without one fsync per request.
 */
export class SqliteStore implements Store {
  readonly capabilities: StoreCapabilities = { notify: false };
  private readonly db: BetterSQLite3Database;
  private readonly statements: Statements;
  private readonly commits: GroupCommit;
  private readonly inode: number;

  /** Takes a connection from `openSqliteConnection`, whose settings and schema it relies on. */
  constructor(private readonly sqlite: Database.Database) {
    this.db = drizzle({ client: sqlite });
    this.statements = prepareStatements(this.db);
    this.inode = fs.statSync(sqlite.name).ino;
    this.commits = new GroupCommit(sqlite);
  }

  async createJob(input: NewJob, audit: AuditStamp, idempotency?: IdempotencyClaim): Promise<Job> {
    const job = newJobToJob(input);
    return this.write(() => {
      try {
        this.statements.insertJob.run(jobToRow(job));
      } catch (error) {
        if (isUniqueViolation(error, LIVE_NAME_COLUMNS)) throw nameTaken(job.name);
        throw error;
      }
      this.writeDependencies(job);
      this.writeAudit(audit, job.id, null, job);
      if (idempotency) this.recordIdempotentResponse(idempotency, job);
      return job;
    });
  }

  async findIdempotencyRecord(key: string): Promise<IdempotencyRecord | null> {
    const row = this.statements.idempotencyByKey.get({ key });
    return row ? { ...row, response: JSON.parse(row.response) as unknown } : null;
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

  /** One daemon is the only writer of a SQLite store, so no one else changes its jobs. */
  async watchJobChanges(): Promise<null> {
    return null;
  }

  async recordFire(fire: Fire): Promise<Run[] | null> {
    try {
      return await this.write(() => {
        const advanced = this.statements.advanceNextRun.get({
          id: fire.jobId,
          expectedNextRunAt: fire.expectedNextRunAt,
          nextRunAt: fire.nextRunAt,
        });
        if (!advanced) return null;
        for (const entry of fire.occurrences) this.statements.insertOccurrence.run(occurrenceToRow(entry));
        return fire.runs.map((run) => this.insertRunRow(run, advanced.name));
      });
    } catch (error) {
      // Another daemon fired this instant first; the transaction rolled back our advance too.
      if (isUniqueViolation(error, RUN_KEY_COLUMNS)) return null;
      throw error;
    }
  }

  async insertRun(run: NewRun, idempotency?: IdempotencyClaim): Promise<Run> {
    return this.write(() => {
      const job = this.statements.jobNameById.get({ id: run.jobId });
      if (!job) throw jobNotFound(run.jobId);
      const inserted = this.insertRunRowOrExplain(run, job.name);
      if (idempotency) this.recordIdempotentResponse(idempotency, inserted);
      return inserted;
    });
  }

  async claimRun(runId: string, startedAt: number): Promise<boolean> {
    return this.write(() => this.statements.claimRun.run({ id: runId, startedAt }).changes === 1);
  }

  async setRunPid(runId: string, pid: number): Promise<void> {
    await this.write(() => this.statements.setRunPid.run({ id: runId, pid }));
  }

  async finishRun(runId: string, outcome: RunOutcome, retry?: NewRun): Promise<FinishedRun> {
    return this.write(() => {
      const { changes } = this.statements.finishRun.run({
        id: runId,
        ...outcome,
        httpStatus: outcome.httpStatus ?? null,
        stdoutBytes: outcome.stdoutBytes ?? null,
        stderrBytes: outcome.stderrBytes ?? null,
        responseHeaders: outcome.responseHeaders ? JSON.stringify(outcome.responseHeaders) : null,
      });
      if (changes === 0) this.throwRunNotChangeable(runId, outcome.state);
      const retried = retry ? this.insertRetry(runId, retry) : null;
      return { run: this.readRun(runId), retry: retried };
    });
  }

  async retryRun(runId: string, retry: NewRun): Promise<Run> {
    return this.write(() => this.insertRetry(runId, retry));
  }

  async listRunningRuns(): Promise<RunSummary[]> {
    return this.statements.runningRuns.all();
  }

  async dueRuns(until: number, limit: number): Promise<Run[]> {
    return this.statements.dueRuns.all({ until, limit }).map(rowToRun);
  }

  async findRun(id: string): Promise<Run | null> {
    const row = this.statements.runById.get({ id });
    return row ? rowToRun(row) : null;
  }

  async findRunIdsByPrefix(prefix: string, limit: number): Promise<string[]> {
    return this.statements.runIdsInRange.all({ ...idPrefixRange(prefix), limit }).map((row) => row.id);
  }

  async listRuns(query: RunQuery): Promise<Page<RunSummary>> {
    return listRuns(this.db, query);
  }

  async appendAudit(entry: AuditEntry): Promise<void> {
    await this.write(() =>
      this.statements.insertAudit.run(auditToRow(entry, entry.jobId, entry.before, entry.after)),
    );
  }

  async listAudit(query: { limit: number; cursor?: string; jobId?: string }): Promise<Page<AuditEntry>> {
    return listAudit(this.db, query);
  }

  async pruneRunsFinishedBefore(states: RunState[], before: number, limit: number): Promise<number> {
    return this.write(() => deleteRunsFinishedBefore(this.sqlite, states, before, limit));
  }

  async pruneRunsBeyond(keep: number, limit: number): Promise<number> {
    return this.write(() => deleteRunsBeyond(this.sqlite, keep, limit));
  }

  async pruneAudit(before: number, limit: number): Promise<number> {
    return this.write(() => deleteAuditBefore(this.sqlite, before, limit));
  }

  async purgeCancelledJobs(before: number, limit: number): Promise<number> {
    return this.write(() => deleteCancelledJobsWithoutRuns(this.sqlite, before, limit));
  }

  async recordOccurrences(entries: NewOccurrence[]): Promise<void> {
    if (entries.length === 0) return;
    await this.write(() => {
      for (const entry of entries) this.statements.insertOccurrence.run(occurrenceToRow(entry));
    });
  }

  async listOccurrences(query: OccurrenceQuery): Promise<LedgerEntry[]> {
    return listOccurrences(this.db, query);
  }

  async listRunsByInstant(query: OccurrenceQuery): Promise<RunSummary[]> {
    return listRunsByInstant(this.db, query);
  }

  async listDependents(upstreamId: string): Promise<Job[]> {
    return this.statements.dependentsOf.all({ upstreamId }).map(rowToJob);
  }

  async listDependencyEdges(): Promise<DependencyEdge[]> {
    return this.statements.dependencyEdges.all();
  }

  async ping(): Promise<void> {
    // The open handle keeps working on a file that was deleted or replaced; the path is what matters.
    const onDisk = fs.statSync(this.sqlite.name, { throwIfNoEntry: false });
    if (!onDisk || onDisk.ino !== this.inode)
      throw new Error(`the database file ${this.sqlite.name} was moved, replaced or deleted`);
    fs.accessSync(this.sqlite.name, fs.constants.R_OK | fs.constants.W_OK);
    await this.write(() => this.statements.readFenceEpoch.get());
  }

  async nextFenceEpoch(): Promise<number> {
    return this.write(() => {
      const row = this.statements.nextFenceEpoch.get();
      if (!row) throw new Error('the fence epoch upsert returned no row');
      return Number(row.value);
    });
  }

  async close(): Promise<void> {
    this.commits.flush();
    if (this.sqlite.open) this.sqlite.close();
  }

  /** Updates and cancels share one path: read, check, write the next version, audit. */
  private changeJob(
    id: string,
    expectedVersion: number,
    change: JobChange,
    now: number,
    audit: AuditStamp,
  ): Promise<Job> {
    return this.write(() => {
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
      if (after.deletedAt !== null) this.statements.deleteDependencies.run({ jobId: id });
      else if (change.definition !== undefined) {
        this.statements.deleteDependencies.run({ jobId: id });
        this.writeDependencies(after);
      }
      this.writeAudit(audit, id, before, after);
      return after;
    });
  }

  private insertRunRow(run: NewRun, jobName: string): Run {
    const row = newRunToRow(run);
    this.statements.insertRun.run(row);
    return { ...row, jobName, responseHeaders: null };
  }

  private insertRunRowOrExplain(run: NewRun, jobName: string): Run {
    try {
      return this.insertRunRow(run, jobName);
    } catch (error) {
      if (isUniqueViolation(error, RUN_KEY_COLUMNS))
        throw runKeyTaken(run.jobId, run.scheduledFor, run.attempt);
      throw error;
    }
  }

  private insertRetry(runId: string, retry: NewRun): Run {
    const { changes } = this.statements.markRetried.run({ id: runId, retriedBy: retry.id });
    if (changes === 0) {
      const current = this.statements.runStateById.get({ id: runId });
      if (!current) throw runNotFound(runId);
      if (current.retriedBy) throw runAlreadyRetried(runId, current.retriedBy);
      throw runInWrongState(runId, current.state, 'retried');
    }
    const job = this.statements.jobNameById.get({ id: retry.jobId });
    if (!job) throw jobNotFound(retry.jobId);
    return this.insertRunRowOrExplain(retry, job.name);
  }

  private readRun(runId: string): Run {
    const row = this.statements.runById.get({ id: runId });
    if (!row) throw runNotFound(runId);
    return rowToRun(row);
  }

  private recordIdempotentResponse(claim: IdempotencyClaim, response: unknown): void {
    const existing = this.statements.idempotencyByKey.get({ key: claim.key });
    if (existing && existing.createdAt < claim.expiredBefore)
      this.statements.deleteIdempotency.run({ key: claim.key });
    try {
      this.statements.insertIdempotency.run({
        key: claim.key,
        method: claim.method,
        fingerprint: claim.fingerprint,
        response: JSON.stringify(response),
        createdAt: claim.createdAt,
      });
    } catch (error) {
      if (isUniqueViolation(error, IDEMPOTENCY_KEY_COLUMNS)) throw idempotencyKeyTaken(claim.key);
      throw error;
    }
  }

  private throwRunNotChangeable(runId: string, wanted: string): never {
    const current = this.statements.runStateById.get({ id: runId });
    if (!current) throw runNotFound(runId);
    throw runInWrongState(runId, current.state, wanted);
  }

  /** The job's `after`/`afterAll` links as rows, in the transaction that writes the job. */
  private writeDependencies(job: Job): void {
    for (const row of dependencyRows(job)) this.statements.insertDependency.run(row);
  }

  private writeAudit(stamp: AuditStamp, jobId: string, before: Job | null, after: Job): void {
    this.statements.insertAudit.run(auditToRow(stamp, jobId, before, after));
  }

  private write<T>(work: () => T): Promise<T> {
    return this.commits.write(work);
  }
}
