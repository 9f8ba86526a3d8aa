import { and, asc, desc, eq, gte, lte } from 'drizzle-orm';
import type { Column } from 'drizzle-orm';
import type { LedgerEntry } from '../../core/ledger/entry.js';
import type { RunSummary } from '../../core/run.js';
import { rowToLedgerEntry, type StoredOccurrence } from '../ledger-rows.js';
import type { OccurrenceQuery } from '../store.js';
import { occurrenceColumns, runSummaryColumns } from './columns.js';
import type { StoreDialect } from './dialect.js';

// Both walk a (job_id, scheduled_for, …) key: the occurrences primary key and runs_instant_unique.

/** One job's rows whose instant lies in the query's range. */
function inRange(jobId: Column, scheduledFor: Column, query: OccurrenceQuery) {
  return and(
    eq(jobId, query.jobId),
    query.from === undefined ? undefined : gte(scheduledFor, query.from),
    query.to === undefined ? undefined : lte(scheduledFor, query.to),
  );
}

/** A job's ledger records in [from, to] by instant (then wall time, then host), newest first unless asked otherwise. */
export async function listOccurrences(dialect: StoreDialect, query: OccurrenceQuery): Promise<LedgerEntry[]> {
  const { occurrences, jobs } = dialect.tables;
  const direction = query.order === 'asc' ? asc : desc;
  const rows = await dialect.session.query<StoredOccurrence & { jobName: string }>((db) =>
    db
      .select(occurrenceColumns(dialect.tables))
      .from(occurrences)
      .innerJoin(jobs, eq(jobs.id, occurrences.jobId))
      .where(inRange(occurrences.jobId, occurrences.scheduledFor, query))
      .orderBy(direction(occurrences.scheduledFor), direction(occurrences.wall), direction(occurrences.host))
      .limit(dialect.rowLimit(query.limit)),
  );
  return rows.map(rowToLedgerEntry);
}

/** A job's runs whose instant is in [from, to], by instant in the asked order, then attempt. */
export async function listRunsByInstant(
  dialect: StoreDialect,
  query: OccurrenceQuery,
): Promise<RunSummary[]> {
  const { runs, jobs } = dialect.tables;
  const direction = query.order === 'asc' ? asc : desc;
  return dialect.session.query<RunSummary>((db) =>
    db
      .select(runSummaryColumns(dialect.tables))
      .from(runs)
      .innerJoin(jobs, eq(jobs.id, runs.jobId))
      .where(inRange(runs.jobId, runs.scheduledFor, query))
      .orderBy(direction(runs.scheduledFor), asc(runs.attempt))
      .limit(dialect.rowLimit(query.limit)),
  );
}
