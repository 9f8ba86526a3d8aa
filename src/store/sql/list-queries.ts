import { and, asc, desc, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import type { Job, JobState } from '../../core/job.js';
import type { RunSummary } from '../../core/run.js';
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

export async function listJobs(dialect: StoreDialect, query: JobQuery): Promise<Page<Job>> {
  const { jobs } = dialect.tables;
  const rows = await dialect.session.query<JobRecord>((db) =>
    db
      .select()
      .from(jobs)
      .where(
        and(
          inArray(jobs.state, query.states ?? LIVE_STATES),
          query.cursor === undefined ? undefined : gt(jobs.id, query.cursor),
          query.labels === undefined ? undefined : dialect.hasLabels(query.labels),
          query.owner === undefined ? undefined : eq(jobs.owner, query.owner),
          query.expectingSuccess ? dialect.expectsSuccess : undefined,
        ),
      )
      .orderBy(asc(jobs.id))
      .limit(query.limit + 1),
  );
  const page = toPage(rows, query.limit);
  return { items: page.items.map(rowToJob), nextCursor: page.nextCursor };
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
      .limit(query.limit + 1),
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
      .limit(query.limit + 1),
  );
  const page = toPage(rows, query.limit);
  return { items: page.items.map(rowToAudit), nextCursor: page.nextCursor };
}
