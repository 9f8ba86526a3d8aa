import { and, asc, desc, eq, gt, inArray, isNull, lt, sql, type Column, type SQL } from 'drizzle-orm';
import type { Job, JobState } from '../../core/job.js';
import type { RunSummary } from '../../core/run.js';
import { EXPECTS_SUCCESS, HOLDS_SECRETS, jobInState } from '../job-index-conditions.js';
import { JOB_STATE_VALUES } from '../schema-values.js';
import type { AuditEntry, JobQuery, Page, RunQuery } from '../store.js';
import { runSummaryColumns } from './columns.js';
import type { StoreDialect } from './dialect.js';
import type { AuditRecord, JobRecord } from './records.js';
import { rowToAudit, rowToJob } from './row-mapping.js';

const LIVE_STATES: JobState[] = ['active', 'paused'];

// Pages walk the primary key: ids compare byte by byte on both back ends (SQLite's BINARY, PostgreSQL's
// COLLATE "C"), so a cursor and ORDER BY id give the same pages everywhere.

/** Rows were fetched with `limit + 1`: the extra one only says that another page exists. */
function toPage<T extends { id: string }>(rows: T[], limit: number): Page<T> {
  if (rows.length <= limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, limit);
  return { items, nextCursor: items[items.length - 1]?.id ?? null };
}

/**
 * One statement, so one snapshot. Per state, the ids of the first `limit + 1` jobs after the cursor, read from
 * an index in id order (the state named literally, which SQLite's partial indexes need); the first `limit + 1`
 * of those, merged in id order, are the page, whose rows alone are read. Merging ids rather than rows keeps
 * the rows of the longer arms out of the sort. IN over the states walked the primary key and filtered its
 * rows: 38 ms at 100,000 jobs for a state or an owner with 20.
 */
export async function listJobs(dialect: StoreDialect, query: JobQuery): Promise<Page<Job>> {
  const { jobs } = dialect.tables;
  const states = [...new Set(query.states ?? LIVE_STATES)];
  if (states.length === 0) return { items: [], nextCursor: null };
  const rows = await dialect.session.query<JobRecord>((db) => {
    const inState = (state: JobState, fields?: { id: Column }) =>
      db
        .select(fields)
        .from(jobs)
        .where(
          and(
            stateCondition(state),
            query.withoutNextRun ? isNull(jobs.nextRunAt) : undefined,
            query.cursor === undefined ? undefined : gt(jobs.id, query.cursor),
            query.labels === undefined ? undefined : dialect.hasLabels(query.labels),
            query.owner === undefined ? undefined : eq(jobs.owner, query.owner),
            query.expectingSuccess ? EXPECTS_SUCCESS : undefined,
            query.holdingSecrets ? HOLDS_SECRETS : undefined,
          ),
        )
        .orderBy(asc(jobs.id))
        .limit(dialect.rowLimit(query.limit + 1));
    if (states.length === 1) return inState(states[0]!);
    const [first, ...others] = states.map((state, index) =>
      db.select().from(inState(state, { id: jobs.id }).as(`in_state_${index}`)),
    );
    const ids = others
      .reduce((union, select) => union.unionAll(select), first!)
      .orderBy(sql`id`)
      .limit(dialect.rowLimit(query.limit + 1));
    return db.select().from(jobs).where(inArray(jobs.id, ids)).orderBy(asc(jobs.id));
  });
  const page = toPage(rows, query.limit);
  return { items: page.items.map(rowToJob), nextCursor: page.nextCursor };
}

/** A state named in the SQL itself, checked first: it is not a bound parameter. */
function stateCondition(state: JobState): SQL {
  if (!JOB_STATE_VALUES.includes(state)) throw new Error(`no job state "${String(state)}"`);
  return jobInState(state);
}

export async function listRuns(dialect: StoreDialect, query: RunQuery): Promise<Page<RunSummary>> {
  if (onlyJobAndLimit(query)) {
    const { session } = dialect;
    const params = { jobId: query.jobId, limit: query.limit + 1 };
    return toPage(await session.all(session.statements.latestRunsOfJob, params), query.limit);
  }
  const { runs, jobs } = dialect.tables;
  // A run is placed in time by its start, or, before it starts, by when it is due.
  const runTime = sql`COALESCE(${runs.startedAt}, ${runs.dueAt})`;
  const rows = await dialect.session.query<RunSummary>((db) =>
    db
      .select(runSummaryColumns(dialect.tables))
      .from(runs)
      .innerJoin(jobs, eq(jobs.id, runs.jobId))
      .where(
        and(
          query.jobId === undefined ? undefined : eq(runs.jobId, query.jobId),
          query.states === undefined ? undefined : inArray(runs.state, query.states),
          query.cursor === undefined ? undefined : lt(runs.id, query.cursor),
          query.labels === undefined ? undefined : dialect.hasLabels(query.labels),
          query.owner === undefined ? undefined : eq(jobs.owner, query.owner),
          query.since === undefined ? undefined : sql`${runTime} >= ${query.since}`,
          query.until === undefined ? undefined : sql`${runTime} <= ${query.until}`,
        ),
      )
      .orderBy(desc(runs.id))
      .limit(dialect.rowLimit(query.limit + 1)),
  );
  return toPage(rows, query.limit);
}

/** Asks for a job's latest runs and nothing else, as `sched show` does: the shape prepared once. */
function onlyJobAndLimit(query: RunQuery): query is RunQuery & { jobId: string } {
  const { limit: _limit, jobId, ...filters } = query;
  return jobId !== undefined && Object.values(filters).every((value) => value === undefined);
}

export async function listAudit(
  dialect: StoreDialect,
  query: { limit: number; cursor?: string; jobId?: string },
): Promise<Page<AuditEntry>> {
  const { auditLog } = dialect.tables;
  const rows = await dialect.session.query<AuditRecord>((db) =>
    db
      .select()
      .from(auditLog)
      .where(
        and(
          query.jobId === undefined ? undefined : eq(auditLog.jobId, query.jobId),
          query.cursor === undefined ? undefined : lt(auditLog.id, query.cursor),
        ),
      )
      .orderBy(desc(auditLog.id))
      .limit(dialect.rowLimit(query.limit + 1)),
  );
  const page = toPage(rows, query.limit);
  return { items: page.items.map(rowToAudit), nextCursor: page.nextCursor };
}
