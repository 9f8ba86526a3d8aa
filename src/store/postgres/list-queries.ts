import { and, asc, desc, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { Job, JobState } from '../../core/job.js';
import type { RunSummary } from '../../core/run.js';
import type { AuditEntry, JobQuery, Page, RunQuery } from '../store.js';
import { rowToAudit, rowToJob, runSummaryColumns, searchableLabels } from './row-mapping.js';
import { auditLog, jobs, runs } from './schema.js';
import type { Db } from './session.js';

const LIVE_STATES: JobState[] = ['active', 'paused'];

/** Rows were fetched with `limit + 1`: the extra one only says that another page exists. */
function toPage<T extends { id: string }>(rows: T[], limit: number): Page<T> {
  if (rows.length <= limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, limit);
  return { items, nextCursor: items[items.length - 1]?.id ?? null };
}

/** jsonb containment: every given label is there with that value, whatever the key's characters. */
function hasLabels(labels: Record<string, string> | undefined): SQL | undefined {
  if (labels === undefined || Object.keys(labels).length === 0) return undefined;
  return sql`${jobs.labels} @> ${JSON.stringify(searchableLabels(labels))}::jsonb`;
}

// Ids are COLLATE "C", so `>`/`<` on a cursor and ORDER BY id walk the primary key in SQLite's order.

export async function listJobs(db: Db, query: JobQuery): Promise<Page<Job>> {
  const rows = await db
    .select()
    .from(jobs)
    .where(
      and(
        inArray(jobs.state, query.states ?? LIVE_STATES),
        query.cursor === undefined ? undefined : gt(jobs.id, query.cursor),
        hasLabels(query.labels),
      ),
    )
    .orderBy(asc(jobs.id))
    .limit(query.limit + 1);
  const page = toPage(rows, query.limit);
  return { items: page.items.map(rowToJob), nextCursor: page.nextCursor };
}

export async function listRuns(db: Db, query: RunQuery): Promise<Page<RunSummary>> {
  const rows = await db
    .select(runSummaryColumns)
    .from(runs)
    .innerJoin(jobs, eq(jobs.id, runs.jobId))
    .where(
      and(
        query.jobId === undefined ? undefined : eq(runs.jobId, query.jobId),
        query.states === undefined ? undefined : inArray(runs.state, query.states),
        query.cursor === undefined ? undefined : lt(runs.id, query.cursor),
        hasLabels(query.labels),
      ),
    )
    .orderBy(desc(runs.id))
    .limit(query.limit + 1);
  return toPage(rows, query.limit);
}

export async function listAudit(
  db: Db,
  query: { limit: number; cursor?: string; jobId?: string },
): Promise<Page<AuditEntry>> {
  const rows = await db
    .select()
    .from(auditLog)
    .where(
      and(
        query.jobId === undefined ? undefined : eq(auditLog.jobId, query.jobId),
        query.cursor === undefined ? undefined : lt(auditLog.id, query.cursor),
      ),
    )
    .orderBy(desc(auditLog.id))
    .limit(query.limit + 1);
  const page = toPage(rows, query.limit);
  return { items: page.items.map(rowToAudit), nextCursor: page.nextCursor };
}
