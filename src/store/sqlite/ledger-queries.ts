import { and, asc, desc, eq, gte, lte } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import type { LedgerEntry } from '../../core/ledger/entry.js';
import type { RunSummary } from '../../core/run.js';
import type { OccurrenceQuery } from '../store.js';
import { occurrenceColumns, rowToLedgerEntry, runSummaryColumns } from './row-mapping.js';
import { jobs, occurrences, runs } from './schema.js';

// Both walk a (job_id, scheduled_for, …) key: the occurrences primary key and runs_instant_unique.

/** A job's ledger records in [from, to] by instant (then wall time), newest first unless asked otherwise. */
export function listOccurrences(db: BetterSQLite3Database, query: OccurrenceQuery): LedgerEntry[] {
  const direction = query.order === 'asc' ? asc : desc;
  return db
    .select(occurrenceColumns)
    .from(occurrences)
    .innerJoin(jobs, eq(jobs.id, occurrences.jobId))
    .where(
      and(
        eq(occurrences.jobId, query.jobId),
        query.from === undefined ? undefined : gte(occurrences.scheduledFor, query.from),
        query.to === undefined ? undefined : lte(occurrences.scheduledFor, query.to),
      ),
    )
    .orderBy(direction(occurrences.scheduledFor), direction(occurrences.wall))
    .limit(query.limit)
    .all()
    .map(rowToLedgerEntry);
}

/** A job's runs whose instant is in [from, to], by instant in the asked order, then attempt. */
export function listRunsByInstant(db: BetterSQLite3Database, query: OccurrenceQuery): RunSummary[] {
  const direction = query.order === 'asc' ? asc : desc;
  return db
    .select(runSummaryColumns)
    .from(runs)
    .innerJoin(jobs, eq(jobs.id, runs.jobId))
    .where(
      and(
        eq(runs.jobId, query.jobId),
        query.from === undefined ? undefined : gte(runs.scheduledFor, query.from),
        query.to === undefined ? undefined : lte(runs.scheduledFor, query.to),
      ),
    )
    .orderBy(direction(runs.scheduledFor), asc(runs.attempt))
    .limit(query.limit)
    .all();
}
