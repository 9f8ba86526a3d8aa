import { and, asc, desc, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import type { Job, JobState } from '../../core/job.js';
import type { RunSummary } from '../../core/run.js';
import type { AuditEntry, JobQuery, Page, RunQuery } from '../store.js';
import { rowToAudit, rowToJob, runSummaryColumns } from './row-mapping.js';
import { auditLog, jobs, runs } from './schema.js';

const LIVE_STATES: JobState[] = ['active', 'paused'];

/** Rows were fetched with `limit + 1`: the extra one only says that another page exists. */
function toPage<T extends { id: string }>(rows: T[], limit: number): Page<T> {
  if (rows.length <= limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, limit);
  return { items, nextCursor: items[items.length - 1]?.id ?? null };
}

/** json_each rather than a JSON path, so label keys need no quoting (dots, quotes, anything). */
function hasLabels(labels: Record<string, string> | undefined): SQL[] {
  return Object.entries(labels ?? {}).map(
    ([key, value]) =>
      sql`EXISTS (SELECT 1 FROM json_each(${jobs.labels}) WHERE key = ${key} AND value = ${value})`,
  );
}

export function listJobs(db: BetterSQLite3Database, query: JobQuery): Page<Job> {
  const rows = db
    .select()
    .from(jobs)
    .where(
      and(
        inArray(jobs.state, query.states ?? LIVE_STATES),
        query.cursor === undefined ? undefined : gt(jobs.id, query.cursor),
        ...hasLabels(query.labels),
      ),
    )
    .orderBy(asc(jobs.id))
    .limit(query.limit + 1)
    .all();
  const page = toPage(rows, query.limit);
  return { items: page.items.map(rowToJob), nextCursor: page.nextCursor };
}

export function listRuns(db: BetterSQLite3Database, query: RunQuery): Page<RunSummary> {
  const rows = db
    .select(runSummaryColumns)
    .from(runs)
    .innerJoin(jobs, eq(jobs.id, runs.jobId))
    .where(
      and(
        query.jobId === undefined ? undefined : eq(runs.jobId, query.jobId),
        query.states === undefined ? undefined : inArray(runs.state, query.states),
        query.cursor === undefined ? undefined : lt(runs.id, query.cursor),
        ...hasLabels(query.labels),
      ),
    )
    .orderBy(desc(runs.id))
    .limit(query.limit + 1)
    .all();
  return toPage(rows, query.limit);
}

export function listAudit(
  db: BetterSQLite3Database,
  query: { limit: number; cursor?: string; jobId?: string },
): Page<AuditEntry> {
  const rows = db
    .select()
    .from(auditLog)
    .where(
      and(
        query.jobId === undefined ? undefined : eq(auditLog.jobId, query.jobId),
        query.cursor === undefined ? undefined : lt(auditLog.id, query.cursor),
      ),
    )
    .orderBy(desc(auditLog.id))
    .limit(query.limit + 1)
    .all();
  const page = toPage(rows, query.limit);
  return { items: page.items.map(rowToAudit), nextCursor: page.nextCursor };
}
