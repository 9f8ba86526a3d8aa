import { sql } from 'drizzle-orm';
import type pg from 'pg';
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
import { openPostgresPool } from './connection.js';
import type { PostgresConnectionOptions } from './connection.js';
import { changeJob, insertJob, recordIdempotentResponse } from './job-writes.js';
import {
  insertOccurrences,
  listOccurrences,
  listRunsByInstant,
  OCCURRENCES_PER_INSERT,
} from './ledger-queries.js';
import { listAudit, listJobs, listRuns } from './list-queries.js';
import { assertMapInForce, listenForJobChanges, notifyJobChanged } from './job-changes.js';
import { isUniqueViolation } from './pg-errors.js';
import { RUN_KEY_INDEX } from './predicates.js';
import * as retention from './retention.js';
import { auditToRow, newJobToJob, rowToJob, rowToRun } from './row-mapping.js';
import { finishRunRow, insertRetry, insertRunRow, insertRunRowOrExplain, jobNameOf } from './run-writes.js';
import { meta } from './schema.js';
import { inTransaction, openSession } from './session.js';
import type { Session } from './session.js';

export type { PostgresConnectionOptions } from './connection.js';

/**
 * Opens the Store on a PostgreSQL database (a `postgres://` URL), bringing its schema up to date first.
 * Several daemons may open the same database at once: migrations run under an advisory lock.
 */
export async function openPostgresStore(
  url: string,
  options: PostgresConnectionOptions = {},
): Promise<PostgresStore> {
  return new PostgresStore(await openPostgresPool(url, options), url);
}

/**
 * The Store on a shared PostgreSQL database, through a pool of connections. Every write that touches
 * more than one row runs in one transaction on one connection; a write of one statement is its own
 * transaction. Compare-and-set conditions sit in the UPDATEs' WHERE clauses and in unique indexes, so
 * they also hold against other daemons writing to the same database: under READ COMMITTED, an UPDATE
 * that waited for a concurrent writer re-checks its WHERE on the row as that writer left it.
 */
export class PostgresStore implements Store {
  readonly capabilities: StoreCapabilities = { notify: true };
  private readonly session: Session;
  private closing: Promise<void> | undefined;

  /** Takes a pool from `openPostgresPool`, whose schema it relies on; `close()` ends the pool. */
  constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
  ) {
    this.session = openSession(pool);
  }

  private get statements() {
    return this.session.statements;
  }

  async createJob(input: NewJob, audit: AuditStamp, idempotency?: IdempotencyClaim): Promise<Job> {
    const job = newJobToJob(input);
    return inTransaction(this.pool, async (session) => {
      await insertJob(session, job, audit);
      if (idempotency) await recordIdempotentResponse(session, idempotency, job);
      await notifyJobChanged(session, job.id);
      return job;
    });
  }

  async findIdempotencyRecord(key: string): Promise<IdempotencyRecord | null> {
    const [row] = await this.statements.idempotencyByKey.execute({ key });
    return row ? { ...row, response: JSON.parse(row.response) as unknown } : null;
  }

  async findJob(ref: string, options: { includeCancelledNames?: boolean } = {}): Promise<Job | null> {
    const [row] = await this.statements.jobByIdOrLiveName.execute({ ref });
    if (row) return rowToJob(row);
    if (!options.includeCancelledNames) return null;
    const [newest] = await this.statements.newestJobByName.execute({ name: ref });
    return newest ? rowToJob(newest) : null;
  }

  async listJobs(query: JobQuery): Promise<Page<Job>> {
    return listJobs(this.session.db, query);
  }

  async updateJob(id: string, expectedVersion: number, change: JobChange, audit: AuditStamp): Promise<Job> {
    return inTransaction(this.pool, async (session) => {
      const job = await changeJob(session, id, expectedVersion, change, audit.at, audit);
      await notifyJobChanged(session, id);
      return job;
    });
  }

  async cancelJob(id: string, expectedVersion: number, now: number, audit: AuditStamp): Promise<Job> {
    return inTransaction(this.pool, async (session) => {
      const job = await changeJob(session, id, expectedVersion, { state: 'cancelled' }, now, audit);
      await notifyJobChanged(session, id);
      return job;
    });
  }

  async countJobs(state: JobState): Promise<number> {
    const [row] = await this.statements.countJobsInState.execute({ state });
    return row?.count ?? 0;
  }

  async watchJobChanges(
    onChange: (jobId: string) => void,
    onError: (error: Error) => void,
  ): Promise<() => Promise<void>> {
    return listenForJobChanges(this.url, onChange, onError);
  }

  async dueJobs(until: number, limit: number): Promise<Job[]> {
    return (await this.statements.dueJobs.execute({ until, limit })).map(rowToJob);
  }

  async recordFire(fire: Fire): Promise<Run[] | null> {
    try {
      return await inTransaction(this.pool, async (session) => {
        if (fire.fence) await assertMapInForce(session, fire.fence);
        const [advanced] = await session.statements.advanceNextRun.execute({
          id: fire.jobId,
          expectedNextRunAt: fire.expectedNextRunAt,
          nextRunAt: fire.nextRunAt,
        });
        if (!advanced) return null;
        for (let start = 0; start < fire.occurrences.length; start += OCCURRENCES_PER_INSERT)
          await insertOccurrences(session.db, fire.occurrences.slice(start, start + OCCURRENCES_PER_INSERT));
        const inserted: Run[] = [];
        for (const run of fire.runs) inserted.push(await insertRunRow(session, run, advanced.name));
        return inserted;
      });
    } catch (error) {
      // Another daemon fired this instant first; the rollback undid our advance too.
      if (isUniqueViolation(error, RUN_KEY_INDEX)) return null;
      throw error;
    }
  }

  async insertRun(run: NewRun, idempotency?: IdempotencyClaim): Promise<Run> {
    return inTransaction(this.pool, async (session) => {
      const inserted = await insertRunRowOrExplain(session, run, await jobNameOf(session, run.jobId));
      if (idempotency) await recordIdempotentResponse(session, idempotency, inserted);
      return inserted;
    });
  }

  async claimRun(runId: string, startedAt: number): Promise<boolean> {
    return (await this.statements.claimRun.execute({ id: runId, startedAt })).length === 1;
  }

  async setRunPid(runId: string, pid: number): Promise<void> {
    await this.statements.setRunPid.execute({ id: runId, pid });
  }

  async finishRun(runId: string, outcome: RunOutcome, retry?: NewRun): Promise<FinishedRun> {
    return inTransaction(this.pool, async (session) => {
      const run = await finishRunRow(session, runId, outcome);
      if (!retry) return { run, retry: null };
      const retried = await insertRetry(session, runId, retry);
      return { run: { ...run, retriedBy: retried.id }, retry: retried };
    });
  }

  async retryRun(runId: string, retry: NewRun): Promise<Run> {
    return inTransaction(this.pool, (session) => insertRetry(session, runId, retry));
  }

  async listRunningRuns(): Promise<RunSummary[]> {
    return this.statements.runningRuns.execute();
  }

  async dueRuns(until: number, limit: number): Promise<Run[]> {
    return (await this.statements.dueRuns.execute({ until, limit })).map(rowToRun);
  }

  async findRun(id: string): Promise<Run | null> {
    const [row] = await this.statements.runById.execute({ id });
    return row ? rowToRun(row) : null;
  }

  async findRunIdsByPrefix(prefix: string, limit: number): Promise<string[]> {
    const rows = await this.statements.runIdsInRange.execute({ ...idPrefixRange(prefix), limit });
    return rows.map((row) => row.id);
  }

  async listRuns(query: RunQuery): Promise<Page<RunSummary>> {
    return listRuns(this.session.db, query);
  }

  async appendAudit(entry: AuditEntry): Promise<void> {
    await this.statements.insertAudit.execute(auditToRow(entry, entry.jobId, entry.before, entry.after));
  }

  async listAudit(query: { limit: number; cursor?: string; jobId?: string }): Promise<Page<AuditEntry>> {
    return listAudit(this.session.db, query);
  }

  async pruneRunsFinishedBefore(states: RunState[], before: number, limit: number): Promise<number> {
    return retention.pruneRunsFinishedBefore(this.session.db, states, before, limit);
  }

  async pruneRunsBeyond(keep: number, limit: number): Promise<number> {
    return retention.pruneRunsBeyond(this.session.db, keep, limit);
  }

  async pruneAudit(before: number, limit: number): Promise<number> {
    return retention.pruneAudit(this.session.db, before, limit);
  }

  async purgeCancelledJobs(before: number, limit: number): Promise<number> {
    return retention.purgeCancelledJobs(this.session.db, before, limit);
  }

  async recordOccurrences(entries: NewOccurrence[]): Promise<void> {
    if (entries.length === 0) return;
    if (entries.length <= OCCURRENCES_PER_INSERT) return insertOccurrences(this.session.db, entries);
    await inTransaction(this.pool, async (session) => {
      for (let start = 0; start < entries.length; start += OCCURRENCES_PER_INSERT)
        await insertOccurrences(session.db, entries.slice(start, start + OCCURRENCES_PER_INSERT));
    });
  }

  async listOccurrences(query: OccurrenceQuery): Promise<LedgerEntry[]> {
    return listOccurrences(this.session.db, query);
  }

  async listRunsByInstant(query: OccurrenceQuery): Promise<RunSummary[]> {
    return listRunsByInstant(this.session.db, query);
  }

  async listDependents(upstreamId: string): Promise<Job[]> {
    return (await this.statements.dependentsOf.execute({ upstreamId })).map(rowToJob);
  }

  async listDependencyEdges(): Promise<DependencyEdge[]> {
    return this.statements.dependencyEdges.execute();
  }

  async ping(): Promise<void> {
    // Reading meta proves the schema is there; a standby (or a read-only database) still answers
    // reads, but the store must write.
    const { rows } = await this.session.db.execute<{ read_only: string }>(
      sql`SELECT current_setting('transaction_read_only') AS read_only FROM (SELECT count(*) FROM ${meta}) AS readable`,
    );
    if (rows[0]?.read_only !== 'off') throw new Error('the PostgreSQL database is read-only (a standby?)');
  }

  async nextFenceEpoch(): Promise<number> {
    const [row] = await this.statements.nextFenceEpoch.execute();
    if (!row) throw new Error('the fence epoch upsert returned no row');
    return Number(row.value);
  }

  async close(): Promise<void> {
    this.closing ??= this.pool.end();
    await this.closing;
  }
}
