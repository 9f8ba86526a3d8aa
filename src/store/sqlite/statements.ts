import { alias } from 'drizzle-orm/sqlite-core';
import { and, asc, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { runColumns, runSummaryColumns } from './row-mapping.js';
import { auditLog, idempotencyKeys, jobDependencies, jobs, meta, occurrences, runs } from './schema.js';

const param = (name: string) => sql.placeholder(name);
/** `set()` takes SQL rather than bare placeholders. */
const setParam = (name: string) => sql`${sql.placeholder(name)}`;

// Partial indexes are only used when the query repeats their WHERE, so these stay literal SQL.
const DUE = sql`${jobs.state} = 'active' AND ${jobs.deletedAt} IS NULL AND ${jobs.nextRunAt} IS NOT NULL`;
const UNFINISHED = sql`${runs.state} IN ('scheduled', 'running')`;
const WAITING = sql`${runs.state} = 'scheduled'`;
const FINAL = sql`${runs.state} IN ('succeeded', 'failed', 'timed_out', 'cancelled', 'lost')`;

const upstreamJobs = alias(jobs, 'upstream');

export const FENCE_EPOCH_KEY = 'fence_epoch';

/** The fixed queries of the store, prepared once per connection. */
export function prepareStatements(db: BetterSQLite3Database) {
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
      .prepare(),
    jobById: db
      .select()
      .from(jobs)
      .where(eq(jobs.id, param('id')))
      .prepare(),
    jobNameById: db
      .select({ name: jobs.name })
      .from(jobs)
      .where(eq(jobs.id, param('id')))
      .prepare(),
    liveJobByName: db
      .select()
      .from(jobs)
      .where(and(eq(jobs.name, param('name')), isNull(jobs.deletedAt)))
      .prepare(),
    newestJobByName: db
      .select()
      .from(jobs)
      .where(eq(jobs.name, param('name')))
      .orderBy(desc(jobs.id))
      .limit(1)
      .prepare(),
    /** Compare-and-set on the version the caller read. */
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
      .where(and(eq(jobs.id, param('id')), eq(jobs.version, param('expectedVersion'))))
      .prepare(),
    countJobsInState: db
      .select({ count: sql<number>`count(*)` })
      .from(jobs)
      .where(eq(jobs.state, param('state')))
      .prepare(),
    dueJobs: db
      .select()
      .from(jobs)
      .where(and(DUE, sql`${jobs.nextRunAt} <= ${param('until')}`))
      .orderBy(asc(jobs.nextRunAt), asc(jobs.id))
      .limit(param('limit'))
      .prepare(),
    /** Compare-and-set on the due time the scheduler saw: a job changed or fired meanwhile is left alone. */
    advanceNextRun: db
      .update(jobs)
      .set({ nextRunAt: setParam('nextRunAt') })
      .where(and(eq(jobs.id, param('id')), eq(jobs.nextRunAt, param('expectedNextRunAt')), DUE))
      .returning({ name: jobs.name })
      .prepare(),

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
        finishedAt: param('finishedAt'),
        pid: param('pid'),
        exitCode: param('exitCode'),
        httpStatus: param('httpStatus'),
        signal: param('signal'),
        error: param('error'),
        stdoutTail: param('stdoutTail'),
        stderrTail: param('stderrTail'),
        stdoutBytes: param('stdoutBytes'),
        stderrBytes: param('stderrBytes'),
        responseHeaders: param('responseHeaders'),
        retriedBy: param('retriedBy'),
        dueAt: param('dueAt'),
        host: param('host'),
      })
      .prepare(),
    runIdsInRange: db
      .select({ id: runs.id })
      .from(runs)
      .where(and(sql`${runs.id} >= ${param('from')}`, sql`${runs.id} < ${param('to')}`))
      .orderBy(asc(runs.id))
      .limit(param('limit'))
      .prepare(),
    runById: db
      .select(runColumns)
      .from(runs)
      .innerJoin(jobs, eq(jobs.id, runs.jobId))
      .where(eq(runs.id, param('id')))
      .prepare(),
    runStateById: db
      .select({ state: runs.state, retriedBy: runs.retriedBy })
      .from(runs)
      .where(eq(runs.id, param('id')))
      .prepare(),
    claimRun: db
      .update(runs)
      .set({ state: 'running', startedAt: setParam('startedAt') })
      .where(and(eq(runs.id, param('id')), WAITING))
      .prepare(),
    setRunPid: db
      .update(runs)
      .set({ pid: setParam('pid') })
      .where(eq(runs.id, param('id')))
      .prepare(),
    /** Only a final run that no attempt retries yet can get one. */
    markRetried: db
      .update(runs)
      .set({ retriedBy: setParam('retriedBy') })
      .where(and(eq(runs.id, param('id')), isNull(runs.retriedBy), FINAL))
      .prepare(),
    dueRuns: db
      .select(runColumns)
      .from(runs)
      .innerJoin(jobs, eq(jobs.id, runs.jobId))
      .where(and(WAITING, sql`${runs.dueAt} <= ${param('until')}`))
      .orderBy(asc(runs.dueAt), asc(runs.id))
      .limit(param('limit'))
      .prepare(),
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
      .where(and(eq(runs.id, param('id')), UNFINISHED))
      .prepare(),
    runningRuns: db
      .select(runSummaryColumns)
      .from(runs)
      .innerJoin(jobs, eq(jobs.id, runs.jobId))
      .where(and(UNFINISHED, sql`${runs.state} = 'running'`))
      .orderBy(asc(runs.id))
      .prepare(),

    /** The first decision about an instant stands: a second record of the same key is dropped. */
    insertOccurrence: db
      .insert(occurrences)
      .values({
        jobId: param('jobId'),
        scheduledFor: param('scheduledFor'),
        wall: param('wall'),
        outcome: param('outcome'),
        reason: param('reason'),
        node: param('node'),
        decidedAt: param('decidedAt'),
      })
      .onConflictDoNothing()
      .prepare(),

    /** A definition may name one upstream twice; the key keeps one link. */
    insertDependency: db
      .insert(jobDependencies)
      .values({ jobId: param('jobId'), upstreamId: param('upstreamId'), on: param('on') })
      .onConflictDoNothing()
      .prepare(),
    deleteDependencies: db
      .delete(jobDependencies)
      .where(eq(jobDependencies.jobId, param('jobId')))
      .prepare(),
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
      .prepare(),
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
      .prepare(),

    idempotencyByKey: db
      .select()
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.key, param('key')))
      .prepare(),
    insertIdempotency: db
      .insert(idempotencyKeys)
      .values({
        key: param('key'),
        method: param('method'),
        fingerprint: param('fingerprint'),
        response: param('response'),
        createdAt: param('createdAt'),
      })
      .prepare(),
    deleteIdempotency: db
      .delete(idempotencyKeys)
      .where(eq(idempotencyKeys.key, param('key')))
      .prepare(),

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
      .prepare(),

    readFenceEpoch: db
      .select({ value: meta.value })
      .from(meta)
      .where(eq(meta.key, FENCE_EPOCH_KEY))
      .prepare(),
    nextFenceEpoch: db
      .insert(meta)
      .values({ key: FENCE_EPOCH_KEY, value: '1' })
      .onConflictDoUpdate({ target: meta.key, set: { value: sql`CAST(${meta.value} AS INTEGER) + 1` } })
      .returning({ value: meta.value })
      .prepare(),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;
