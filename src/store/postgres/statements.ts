import { and, asc, desc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { alias } from 'drizzle-orm/pg-core';
import { DUE, FENCE_EPOCH_KEY, FINAL, UNFINISHED, WAITING } from './predicates.js';
import { runColumns, runSummaryColumns } from './row-mapping.js';
import { auditLog, idempotencyKeys, jobDependencies, jobs, meta, runs } from './schema.js';

const param = (name: string) => sql.placeholder(name);
/**
 * `set()` is typed without placeholders, but takes them: drizzle wraps any value that is not SQL in a
 * Param carrying the column's encoder, so bytea and jsonb values are still encoded on execution.
 */
const setParam = (name: string) => sql.placeholder(name) as unknown as SQL;

const upstreamJobs = alias(jobs, 'upstream');

/**
 * The fixed queries of the store as named prepared statements: built once per connection handle rather
 * than per call (a drizzle build is ~50–100 µs), and parsed and planned once per server connection.
 */
export function prepareStatements(db: NodePgDatabase) {
  return {
    insertJob: db
      .insert(jobs)
      .values({
        id: param('id'),
        name: param('name'),
        state: param('state'),
        definition: param('definition'),
        labels: param('labels'),
        owner: param('owner'),
        version: param('version'),
        createdAt: param('createdAt'),
        updatedAt: param('updatedAt'),
        deletedAt: param('deletedAt'),
        nextRunAt: param('nextRunAt'),
      })
      .prepare('sched_insert_job'),
    /** By id, else by live name: an id match wins, as two lookups in that order would. */
    jobByIdOrLiveName: db
      .select()
      .from(jobs)
      .where(or(eq(jobs.id, param('ref')), and(eq(jobs.name, param('ref')), isNull(jobs.deletedAt))))
      .orderBy(sql`${jobs.id} = ${param('ref')} DESC`)
      .limit(1)
      .prepare('sched_job_by_id_or_live_name'),
    newestJobByName: db
      .select()
      .from(jobs)
      .where(eq(jobs.name, param('name')))
      .orderBy(desc(jobs.id))
      .limit(1)
      .prepare('sched_newest_job_by_name'),
    jobNameById: db
      .select({ name: jobs.name })
      .from(jobs)
      .where(eq(jobs.id, param('id')))
      .prepare('sched_job_name_by_id'),
    /**
     * Locks the row, so reading, checking and writing the next version are atomic across daemons. NO KEY:
     * the id stays, so runs being inserted for the job (their foreign key takes KEY SHARE) need not wait.
     */
    jobForUpdate: db
      .select()
      .from(jobs)
      .where(eq(jobs.id, param('id')))
      .for('no key update')
      .prepare('sched_job_for_update'),
    updateJob: db
      .update(jobs)
      .set({
        name: setParam('name'),
        state: setParam('state'),
        definition: setParam('definition'),
        labels: setParam('labels'),
        version: setParam('version'),
        updatedAt: setParam('updatedAt'),
        deletedAt: setParam('deletedAt'),
        nextRunAt: setParam('nextRunAt'),
      })
      .where(eq(jobs.id, param('id')))
      .prepare('sched_update_job'),
    countJobsInState: db
      .select({ count: sql<number>`count(*)`.mapWith(Number) })
      .from(jobs)
      .where(eq(jobs.state, param('state')))
      .prepare('sched_count_jobs'),
    dueJobs: db
      .select()
      .from(jobs)
      .where(and(DUE, sql`${jobs.nextRunAt} <= ${param('until')}`))
      .orderBy(asc(jobs.nextRunAt), asc(jobs.id))
      .limit(param('limit'))
      .prepare('sched_due_jobs'),
    /**
     * Compare-and-set on the due time the scheduler saw. A daemon firing the same instant blocks on the
     * row until the first commits, then finds next_run_at moved and updates nothing.
     */
    advanceNextRun: db
      .update(jobs)
      .set({ nextRunAt: setParam('nextRunAt') })
      .where(and(eq(jobs.id, param('id')), eq(jobs.nextRunAt, param('expectedNextRunAt')), DUE))
      .returning({ name: jobs.name })
      .prepare('sched_advance_next_run'),

    insertRun: db
      .insert(runs)
      .values({
        id: param('id'),
        jobId: param('jobId'),
        scheduledFor: param('scheduledFor'),
        attempt: param('attempt'),
        trigger: param('trigger'),
        state: param('state'),
        node: param('node'),
        fence: param('fence'),
        createdAt: param('createdAt'),
        startedAt: param('startedAt'),
        dueAt: param('dueAt'),
        host: param('host'),
      })
      .prepare('sched_insert_run'),
    runIdsInRange: db
      .select({ id: runs.id })
      .from(runs)
      .where(and(sql`${runs.id} >= ${param('from')}`, sql`${runs.id} < ${param('to')}`))
      .orderBy(asc(runs.id))
      .limit(param('limit'))
      .prepare('sched_run_ids_in_range'),
    runById: db
      .select(runColumns)
      .from(runs)
      .innerJoin(jobs, eq(jobs.id, runs.jobId))
      .where(eq(runs.id, param('id')))
      .prepare('sched_run_by_id'),
    runStateById: db
      .select({ state: runs.state, retriedBy: runs.retriedBy })
      .from(runs)
      .where(eq(runs.id, param('id')))
      .prepare('sched_run_state_by_id'),
    claimRun: db
      .update(runs)
      .set({ state: 'running', startedAt: setParam('startedAt') })
      .where(and(eq(runs.id, param('id')), WAITING))
      .returning({ id: runs.id })
      .prepare('sched_claim_run'),
    setRunPid: db
      .update(runs)
      .set({ pid: setParam('pid') })
      .where(eq(runs.id, param('id')))
      .prepare('sched_set_run_pid'),
    /** Records an outcome if the run is still unfinished, and returns it with its job's name. */
    finishRun: db
      .update(runs)
      .set({
        state: setParam('state'),
        finishedAt: setParam('finishedAt'),
        exitCode: setParam('exitCode'),
        httpStatus: setParam('httpStatus'),
        signal: setParam('signal'),
        error: setParam('error'),
        stdoutTail: setParam('stdoutTail'),
        stderrTail: setParam('stderrTail'),
        stdoutBytes: setParam('stdoutBytes'),
        stderrBytes: setParam('stderrBytes'),
        responseHeaders: setParam('responseHeaders'),
      })
      .from(jobs)
      .where(and(eq(runs.id, param('id')), eq(jobs.id, runs.jobId), UNFINISHED))
      .returning(runColumns)
      .prepare('sched_finish_run'),
    /** Only a final run that no attempt retries yet can get one. */
    markRetried: db
      .update(runs)
      .set({ retriedBy: setParam('retriedBy') })
      .where(and(eq(runs.id, param('id')), isNull(runs.retriedBy), FINAL))
      .returning({ id: runs.id })
      .prepare('sched_mark_retried'),
    dueRuns: db
      .select(runColumns)
      .from(runs)
      .innerJoin(jobs, eq(jobs.id, runs.jobId))
      .where(and(WAITING, sql`${runs.dueAt} <= ${param('until')}`))
      .orderBy(asc(runs.dueAt), asc(runs.id))
      .limit(param('limit'))
      .prepare('sched_due_runs'),
    runningRuns: db
      .select(runSummaryColumns)
      .from(runs)
      .innerJoin(jobs, eq(jobs.id, runs.jobId))
      .where(and(UNFINISHED, sql`${runs.state} = 'running'`))
      .orderBy(asc(runs.id))
      .prepare('sched_running_runs'),

    deleteDependencies: db
      .delete(jobDependencies)
      .where(eq(jobDependencies.jobId, param('jobId')))
      .prepare('sched_delete_dependencies'),
    /** Live jobs only: links of a cancelled job are deleted with it, and the filter guards the rest. */
    dependentsOf: db
      .select()
      .from(jobs)
      .where(
        and(
          isNull(jobs.deletedAt),
          inArray(
            jobs.id,
            db
              .select({ jobId: jobDependencies.jobId })
              .from(jobDependencies)
              .where(eq(jobDependencies.upstreamId, param('upstreamId'))),
          ),
        ),
      )
      .orderBy(asc(jobs.id))
      .prepare('sched_dependents_of'),
    /** Links whose upstream was cancelled are left out: a cancelled job can close no cycle. */
    dependencyEdges: db
      .select({ job: jobDependencies.jobId, upstream: jobDependencies.upstreamId, on: jobDependencies.on })
      .from(jobDependencies)
      .innerJoin(jobs, and(eq(jobs.id, jobDependencies.jobId), isNull(jobs.deletedAt)))
      .innerJoin(
        upstreamJobs,
        and(eq(upstreamJobs.id, jobDependencies.upstreamId), isNull(upstreamJobs.deletedAt)),
      )
      .orderBy(asc(jobDependencies.jobId), asc(jobDependencies.upstreamId), asc(jobDependencies.on))
      .prepare('sched_dependency_edges'),

    idempotencyByKey: db
      .select()
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.key, param('key')))
      .prepare('sched_idempotency_by_key'),
    /**
     * One upsert: a record older than `expiredBefore` is replaced, a live one is left alone and no row
     * comes back, which means the key is taken.
     */
    claimIdempotencyKey: db
      .insert(idempotencyKeys)
      .values({
        key: param('key'),
        method: param('method'),
        fingerprint: param('fingerprint'),
        response: param('response'),
        createdAt: param('createdAt'),
      })
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
      .returning({ key: idempotencyKeys.key })
      .prepare('sched_claim_idempotency_key'),

    insertAudit: db
      .insert(auditLog)
      .values({
        id: param('id'),
        at: param('at'),
        actor: param('actor'),
        action: param('action'),
        jobId: param('jobId'),
        before: param('before'),
        after: param('after'),
      })
      .prepare('sched_insert_audit'),

    /** The upsert locks the row, so concurrent callers (other daemons too) each get the next number. */
    nextFenceEpoch: db
      .insert(meta)
      .values({ key: FENCE_EPOCH_KEY, value: '1' })
      .onConflictDoUpdate({ target: meta.key, set: { value: sql`(${meta.value}::int8 + 1)::text` } })
      .returning({ value: meta.value })
      .prepare('sched_next_fence_epoch'),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;
