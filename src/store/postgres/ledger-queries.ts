import { and, asc, desc, eq, gte, lte } from 'drizzle-orm';
import type { LedgerEntry } from '../../core/ledger/entry.js';
import type { RunSummary } from '../../core/run.js';
import type { NewOccurrence, OccurrenceQuery } from '../store.js';
import { occurrenceColumns, occurrenceToRow, rowToLedgerEntry, runSummaryColumns } from './row-mapping.js';
import { jobs, occurrences, runs } from './schema.js';
import type { Db } from './session.js';

/** Rows per INSERT: 7 parameters each, well under PostgreSQL's 65,535 per statement. */
export const OCCURRENCES_PER_INSERT = 1000;

/** The first decision about an instant stands: rows whose key is already there are dropped. */
export async function insertOccurrences(db: Db, entries: NewOccurrence[]): Promise<void> {
  await db.insert(occurrences).values(entries.map(occurrenceToRow)).onConflictDoNothing();
}

// Both walk a (job_id, scheduled_for, …) key: the occurrences primary key and runs_instant_unique.

/** A job's ledger records in [from, to] by instant (then wall time), newest first unless asked otherwise. */
export async function listOccurrences(db: Db, query: OccurrenceQuery): Promise<LedgerEntry[]> {
  const direction = query.order === 'asc' ? asc : desc;
  const rows = await db
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
    .limit(query.limit);
  return rows.map(rowToLedgerEntry);
}

/** A job's runs whose instant is in [from, to], by instant in the asked order, then attempt. */
export async function listRunsByInstant(db: Db, query: OccurrenceQuery): Promise<RunSummary[]> {
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
    .limit(query.limit);
}
