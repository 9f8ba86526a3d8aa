import { and, asc, desc, eq, inArray, isNotNull, isNull, or, sql, type Placeholder } from 'drizzle-orm';
import type { RunInFlight } from '../../core/policy/fire-overlap.js';
import type { ApiToken } from '../../core/access/api-token.js';
import type { RunSummary } from '../../core/run.js';
import type { JobState } from '../../core/job.js';
import { JOB_STATE_VALUES } from '../schema-values.js';
import type { DependencyEdge } from '../store.js';
import {
  apiTokenColumns,
  param,
  placeholders,
  runColumns,
  runSummaryColumns,
  setParam,
  statePredicates,
} from './columns.js';
import { defineJobDetailStatements } from './job-detail-statements.js';
import type { QueryBuilder, QueryChain, RowLimit, Statement } from './query-builder.js';
import type { AuditRecord, IdempotencyRow, JobRecord, RunRecord } from './records.js';
import {
  AUDIT_COLUMNS,
  DEPENDENCY_COLUMNS,
  IDEMPOTENCY_COLUMNS,
  CHANGEABLE_JOB_COLUMNS,
  JOB_COLUMNS,
  NEW_RUN_COLUMNS,
  OCCURRENCE_COLUMNS,
  OUTCOME_COLUMNS,
  type EventRow,
  type StoreTables,
} from './tables.js';

export const FENCE_EPOCH_KEY = 'fence_epoch';
export const SECRET_KEY_KEY = 'secret_key';

/** What the shared statements need of a dialect. */
export interface StatementDialect {
  /** Prepares a statement once per connection; PostgreSQL also names it, to be planned once per server connection. */
  prepare(query: QueryChain, name: string): unknown;
  /**
   * Makes reading, checking and writing a job's next version atomic against other writers: PostgreSQL locks
   * the row; SQLite has one writer, whose transaction already holds the database.
   */
  lockForUpdate(query: QueryChain): QueryChain;
  /** A LIMIT as this dialect is fastest to run it. */
  rowLimit(limit: number | Placeholder): RowLimit;
  /** The query of how many jobs are in `state`, as a row `{ count }` (none: zero). */
  countJobsInState(state: JobState): QueryChain;
}

/** The fixed queries of the store, built once per connection handle (a drizzle build is ~50–100 µs). */
export function defineStatements(db: QueryBuilder, tables: StoreTables, dialect: StatementDialect) {
  const { jobs, upstreamJobs, runs, jobDependencies, idempotencyKeys, auditLog, occurrences, meta, events } =
    tables;
  const { due, unfinished, waiting, final } = statePredicates(tables);
  const prepare = <Row = never>(name: string, query: QueryChain) =>
    dialect.prepare(query, `sched_${name}`) as Statement<Row>;
  const dependents = db
    .select({ jobId: jobDependencies.jobId })
    .from(jobDependencies)
    .where(eq(jobDependencies.upstreamId, param('upstreamId')));

  return {
    ...defineJobDetailStatements(db, tables, prepare, dialect.rowLimit),
    insertJob: prepare('insert_job', db.insert(jobs).values(placeholders(JOB_COLUMNS))),
    /** By id, else by live name: an id match wins, as two lookups in that order would. */
    jobByIdOrLiveName: prepare<JobRecord>(
      'job_by_id_or_live_name',
      db
        .select()
        .from(jobs)
        .where(or(eq(jobs.id, param('ref')), and(eq(jobs.name, param('ref')), isNull(jobs.deletedAt))))
        .orderBy(sql`${jobs.id} = ${param('ref')} DESC`)
        .limit(dialect.rowLimit(1)),
    ),
    jobById: prepare<JobRecord>(
      'job_by_id',
      db
        .select()
        .from(jobs)
        .where(eq(jobs.id, param('id'))),
    ),
    liveJobByName: prepare<JobRecord>(
      'live_job_by_name',
      db
        .select()
        .from(jobs)
        .where(and(eq(jobs.name, param('name')), isNull(jobs.deletedAt))),
    ),
    /** Cancelled only (jobs_cancelled_name_idx): asked once no live job has the name. */
    newestCancelledJobByName: prepare<JobRecord>(
      'newest_cancelled_job_by_name',
      db
        .select()
        .from(jobs)
        .where(and(eq(jobs.name, param('name')), isNotNull(jobs.deletedAt)))
        .orderBy(desc(jobs.id))
        .limit(dialect.rowLimit(1)),
    ),
    jobNameById: prepare<{ name: string }>(
      'job_name_by_id',
      db
        .select({ name: jobs.name })
        .from(jobs)
        .where(eq(jobs.id, param('id'))),
    ),
    jobForUpdate: prepare<JobRecord>(
      'job_for_update',
      dialect.lockForUpdate(
        db
          .select()
          .from(jobs)
          .where(eq(jobs.id, param('id'))),
      ),
    ),
    /** Compare-and-set on the version the caller read. */
    updateJob: prepare(
      'update_job',
      db
        .update(jobs)
        .set(placeholders(CHANGEABLE_JOB_COLUMNS, setParam))
        .where(and(eq(jobs.id, param('id')), eq(jobs.version, param('expectedVersion')))),
    ),
    /** Compare-and-set on the version, which stays: the definition means the same (re-sealed secrets). */
    rewriteDefinition: prepare<{ id: string }>(
      'rewrite_definition',
      db
        .update(jobs)
        .set({ definition: setParam('definition') })
        .where(and(eq(jobs.id, param('id')), eq(jobs.version, param('version'))))
        .returning({ id: jobs.id }),
    ),
    countJobsInState: Object.fromEntries(
      JOB_STATE_VALUES.map((state) => [
        state,
        prepare<{ count: number }>(`count_jobs_${state}`, dialect.countJobsInState(state)),
      ]),
    ) as Record<JobState, Statement<{ count: number }>>,
    dueJobs: prepare<JobRecord>(
      'due_jobs',
      db
        .select()
        .from(jobs)
        .where(and(due, sql`${jobs.nextRunAt} <= ${param('until')}`))
        .orderBy(asc(jobs.nextRunAt), asc(jobs.id))
        .limit(dialect.rowLimit(param('limit'))),
    ),
    /**
     * Compare-and-set on the due time the scheduler saw: a job changed or fired meanwhile is left alone. A
     * daemon firing the same instant on PostgreSQL blocks on the row until the first commits, then finds
     * next_run_at moved and updates nothing.
     */
    advanceNextRun: prepare<{ name: string }>(
      'advance_next_run',
      db
        .update(jobs)
        .set({ nextRunAt: setParam('nextRunAt') })
        .where(and(eq(jobs.id, param('id')), eq(jobs.nextRunAt, param('expectedNextRunAt')), due))
        .returning({ name: jobs.name }),
    ),

    insertRun: prepare('insert_run', db.insert(runs).values(placeholders(NEW_RUN_COLUMNS))),
    runIdsInRange: prepare<{ id: string }>(
      'run_ids_in_range',
      db
        .select({ id: runs.id })
        .from(runs)
        .where(and(sql`${runs.id} >= ${param('from')}`, sql`${runs.id} < ${param('to')}`))
        .orderBy(asc(runs.id))
        .limit(dialect.rowLimit(param('limit'))),
    ),
    runById: prepare<RunRecord>(
      'run_by_id',
      db
        .select(runColumns(tables))
        .from(runs)
        .innerJoin(jobs, eq(jobs.id, runs.jobId))
        .where(eq(runs.id, param('id'))),
    ),
    runStateById: prepare<{ state: RunSummary['state']; retriedBy: string | null }>(
      'run_state_by_id',
      db
        .select({ state: runs.state, retriedBy: runs.retriedBy })
        .from(runs)
        .where(eq(runs.id, param('id'))),
    ),
    claimRun: prepare<{ id: string }>(
      'claim_run',
      db
        .update(runs)
        // The node that claims it runs it (a waiting run's maker may have left); none named keeps the maker.
        .set({
          state: 'running',
          startedAt: setParam('startedAt'),
          node: sql`coalesce(${param('node')}, ${runs.node})`,
        })
        .where(and(eq(runs.id, param('id')), waiting))
        .returning({ id: runs.id }),
    ),
    /**
     * The runs of a job's host not yet ended, for the overlap rule, in no order. The unfinished predicate is
     * literal, so the partial index on a job's runs in flight serves it, however many runs the job has had;
     * an ORDER BY id would make SQLite walk the job's whole history by id instead.
     */
    runsInFlight: prepare<RunInFlight>(
      'runs_in_flight',
      db
        .select({ id: runs.id, node: runs.node, state: runs.state, trigger: runs.trigger })
        .from(runs)
        .where(and(unfinished, eq(runs.jobId, param('jobId')), eq(runs.host, param('host')))),
    ),
    /**
     * A waiting run's job and host, taking its job's row lock (and the run's) as a fire's compare-and-set
     * does, so a claim and a fire of one job never decide on the same runs at once.
     */
    lockJobOfRun: prepare<{ jobId: string; host: string; state: RunSummary['state'] }>(
      'lock_job_of_run',
      dialect.lockForUpdate(
        db
          .select({ jobId: runs.jobId, host: runs.host, state: runs.state })
          .from(runs)
          .innerJoin(jobs, eq(jobs.id, runs.jobId))
          .where(eq(runs.id, param('id'))),
      ),
    ),
    /** Only a run still waiting: one that started meanwhile is left to its executor. */
    cancelWaitingRun: prepare<{ id: string }>(
      'cancel_waiting_run',
      db
        .update(runs)
        .set(placeholders(OUTCOME_COLUMNS, setParam))
        .where(and(eq(runs.id, param('id')), waiting))
        .returning({ id: runs.id }),
    ),
    setRunPid: prepare(
      'set_run_pid',
      db
        .update(runs)
        .set({ pid: setParam('pid') })
        .where(eq(runs.id, param('id'))),
    ),
    setRunStart: prepare(
      'set_run_start',
      db
        .update(runs)
        .set({ pid: setParam('pid'), startedAt: setParam('startedAt') })
        .where(eq(runs.id, param('id'))),
    ),
    /** Only a final run that no attempt retries yet can get one. */
    markRetried: prepare<{ id: string }>(
      'mark_retried',
      db
        .update(runs)
        .set({ retriedBy: setParam('retriedBy') })
        .where(and(eq(runs.id, param('id')), isNull(runs.retriedBy), final))
        .returning({ id: runs.id }),
    ),
    dueRuns: prepare<RunRecord>(
      'due_runs',
      db
        .select(runColumns(tables))
        .from(runs)
        .innerJoin(jobs, eq(jobs.id, runs.jobId))
        .where(and(waiting, sql`${runs.dueAt} <= ${param('until')}`))
        .orderBy(asc(runs.dueAt), asc(runs.id))
        .limit(dialect.rowLimit(param('limit'))),
    ),
    runningRuns: prepare<RunSummary>(
      'running_runs',
      db
        .select(runSummaryColumns(tables))
        .from(runs)
        .innerJoin(jobs, eq(jobs.id, runs.jobId))
        .where(and(unfinished, sql`${runs.state} = 'running'`))
        .orderBy(asc(runs.id)),
    ),

    /** The first decision about an instant stands: a second record of the same key is dropped. */
    insertOccurrence: prepare(
      'insert_occurrence',
      db.insert(occurrences).values(placeholders(OCCURRENCE_COLUMNS)).onConflictDoNothing(),
    ),

    /** A definition may name one upstream twice; the key keeps one link. */
    insertDependency: prepare(
      'insert_dependency',
      db.insert(jobDependencies).values(placeholders(DEPENDENCY_COLUMNS)).onConflictDoNothing(),
    ),
    deleteDependencies: prepare(
      'delete_dependencies',
      db.delete(jobDependencies).where(eq(jobDependencies.jobId, param('jobId'))),
    ),
    /** Live jobs only: links of a cancelled job are deleted with it, and the filter guards the rest. */
    dependentsOf: prepare<JobRecord>(
      'dependents_of',
      db
        .select()
        .from(jobs)
        .where(and(isNull(jobs.deletedAt), inArray(jobs.id, dependents)))
        .orderBy(asc(jobs.id)),
    ),
    /** Links whose upstream was cancelled are left out: a cancelled job can close no cycle. */
    dependencyEdges: prepare<DependencyEdge>(
      'dependency_edges',
      db
        .select({ job: jobDependencies.jobId, upstream: jobDependencies.upstreamId, on: jobDependencies.on })
        .from(jobDependencies)
        .innerJoin(jobs, and(eq(jobs.id, jobDependencies.jobId), isNull(jobs.deletedAt)))
        .innerJoin(
          upstreamJobs,
          and(eq(upstreamJobs.id, jobDependencies.upstreamId), isNull(upstreamJobs.deletedAt)),
        )
        .orderBy(asc(jobDependencies.jobId), asc(jobDependencies.upstreamId), asc(jobDependencies.on)),
    ),

    /** Every API request's authentication: built once, not per request. */
    apiTokenByHash: prepare<ApiToken>(
      'api_token_by_hash',
      db
        .select(apiTokenColumns(tables))
        .from(tables.apiTokens)
        .where(eq(tables.apiTokens.hash, param('hash'))),
    ),
    idempotencyByKey: prepare<IdempotencyRow>(
      'idempotency_by_key',
      db
        .select()
        .from(idempotencyKeys)
        .where(eq(idempotencyKeys.key, param('key'))),
    ),
    /**
     * One upsert: a record older than `expiredBefore` is replaced, a live one is left alone and no row
     * comes back, which means the key is taken.
     */
    claimIdempotencyKey: prepare<{ key: string }>(
      'claim_idempotency_key',
      db
        .insert(idempotencyKeys)
        .values(placeholders(IDEMPOTENCY_COLUMNS))
        .onConflictDoUpdate({
          target: idempotencyKeys.key,
          set: {
            method: sql`excluded.method`,
            fingerprint: sql`excluded.fingerprint`,
            response: sql`excluded.response`,
            createdAt: sql`excluded.created_at`,
          },
          setWhere: sql`${idempotencyKeys.createdAt} < ${param('expiredBefore')}`,
        })
        .returning({ key: idempotencyKeys.key }),
    ),

    insertAudit: prepare<AuditRecord>(
      'insert_audit',
      db.insert(auditLog).values(placeholders(AUDIT_COLUMNS)),
    ),

    eventsAfter: prepare<EventRow & { id: number }>(
      'events_after',
      db
        .select()
        .from(events)
        .where(sql`${events.id} > ${param('after')}`)
        .orderBy(asc(events.id))
        .limit(dialect.rowLimit(param('limit'))),
    ),
    eventIdsAfter: prepare<{ id: number }>(
      'event_ids_after',
      db
        .select({ id: events.id })
        .from(events)
        .where(sql`${events.id} > ${param('after')}`)
        .orderBy(asc(events.id))
        .limit(dialect.rowLimit(param('limit'))),
    ),
    runOutputEvents: prepare<EventRow & { id: number }>(
      'run_output_events',
      db
        .select()
        .from(events)
        .where(and(eq(events.runId, param('runId')), eq(events.type, 'run:output')))
        .orderBy(asc(events.id)),
    ),
    latestEventId: prepare<{ id: number }>(
      'latest_event_id',
      db.select({ id: sql<number>`coalesce(max(${events.id}), 0)`.mapWith(Number) }).from(events),
    ),

    secretKeyId: prepare<{ value: string }>(
      'secret_key_id',
      db.select({ value: meta.value }).from(meta).where(eq(meta.key, SECRET_KEY_KEY)),
    ),
    /** Only while none is recorded: the first daemon's key is the store's. */
    insertSecretKeyId: prepare<{ value: string }>(
      'insert_secret_key_id',
      db
        .insert(meta)
        .values({ key: SECRET_KEY_KEY, value: param('keyId') })
        .onConflictDoNothing()
        .returning({ value: meta.value }),
    ),
    /** Compare-and-set on the id recorded. */
    replaceSecretKeyId: prepare<{ value: string }>(
      'replace_secret_key_id',
      db
        .update(meta)
        .set({ value: setParam('keyId') })
        .where(and(eq(meta.key, SECRET_KEY_KEY), eq(meta.value, param('expected'))))
        .returning({ value: meta.value }),
    ),
    readFenceEpoch: prepare<{ value: string }>(
      'read_fence_epoch',
      db.select({ value: meta.value }).from(meta).where(eq(meta.key, FENCE_EPOCH_KEY)),
    ),
    /** The upsert locks the row, so concurrent callers (other daemons too) each get the next number. */
    nextFenceEpoch: prepare<{ value: string }>(
      'next_fence_epoch',
      db
        .insert(meta)
        .values({ key: FENCE_EPOCH_KEY, value: '1' })
        .onConflictDoUpdate({
          target: meta.key,
          set: { value: sql`CAST(CAST(${meta.value} AS BIGINT) + 1 AS TEXT)` },
        })
        .returning({ value: meta.value }),
    ),
  };
}

export type Statements = ReturnType<typeof defineStatements>;
