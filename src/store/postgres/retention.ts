import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { RunState } from '../../core/run.js';
import type { Retention } from '../sql/dialect.js';
import { auditLog, deliveries, events, jobDependencies, jobs, occurrences, runs } from './schema.js';
import type { Db } from './session.js';

// Each batch is one DELETE of a MATERIALIZED batch: as a plain IN subquery with LIMIT and SKIP LOCKED,
// PostgreSQL may run the subquery more than once and delete more than the batch (seen in CI). Each batch is one DELETE (two when runs run out and ledger records follow), each its own short
// transaction. SKIP LOCKED: when several daemons share the database and prune at once, each takes rows
// the others are not deleting instead of queueing behind them.

/**
 * Finished runs in `states` that finished before `before`, then, with what is left of `limit`, ledger records
 * decided before `before`: the ledger is kept as long as the shortest-kept runs, and a backlog of either
 * drains batch by batch.
 */
export async function pruneRunsFinishedBefore(
  db: Db,
  states: RunState[],
  before: number,
  limit: number,
): Promise<number> {
  const pruned = await deleted(
    db,
    sql`WITH batch AS MATERIALIZED (
      SELECT id FROM ${runs}
      WHERE finished_at IS NOT NULL AND finished_at < ${before} AND state = ANY(${`{${states.join(',')}}`}::text[])
      LIMIT ${limit} FOR UPDATE SKIP LOCKED
    )
    DELETE FROM ${runs} WHERE id IN (SELECT id FROM batch)`,
  );
  if (pruned >= limit) return pruned;
  return pruned + (await pruneOccurrencesBefore(db, before, limit - pruned));
}

async function pruneOccurrencesBefore(db: Db, before: number, limit: number): Promise<number> {
  return deleted(
    db,
    sql`WITH batch AS MATERIALIZED (
      SELECT job_id, scheduled_for, wall, host FROM ${occurrences} WHERE decided_at < ${before}
      LIMIT ${limit} FOR UPDATE SKIP LOCKED
    )
    DELETE FROM ${occurrences} WHERE (job_id, scheduled_for, wall, host) IN (SELECT * FROM batch)`,
  );
}

/** The finished runs of the (up to 100) crowded jobs beyond their newest `keep`. */
export async function pruneRunsBeyond(db: Db, keep: number, limit: number): Promise<number> {
  return deleted(
    db,
    sql`WITH crowded AS (
      SELECT job_id FROM runs GROUP BY job_id HAVING count(*) > ${keep} LIMIT 100
    ), beyond AS (
      SELECT old.id FROM crowded CROSS JOIN LATERAL (
        SELECT id FROM runs
        WHERE runs.job_id = crowded.job_id AND runs.state NOT IN ('scheduled', 'running')
        ORDER BY id DESC OFFSET ${keep}
      ) AS old
      LIMIT ${limit}
    )
    DELETE FROM runs WHERE id IN (SELECT id FROM beyond)`,
  );
}

export async function pruneAudit(db: Db, before: number, limit: number): Promise<number> {
  return deleted(
    db,
    sql`WITH batch AS MATERIALIZED (
      SELECT id FROM ${auditLog} WHERE at < ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED
    )
    DELETE FROM ${auditLog} WHERE id IN (SELECT id FROM batch)`,
  );
}

/**
 * Cancelled jobs whose runs retention already removed, with their ledger records (and any dependency links,
 * which cancelling already removed) in the same statement; the runs' foreign key guards a late insert.
 * The foreign keys are checked at the end of the statement, after every part of it has run.
 */
export async function purgeCancelledJobs(db: Db, before: number, limit: number): Promise<number> {
  return deleted(
    db,
    sql`WITH batch AS (
      SELECT id FROM ${jobs}
      WHERE state = 'cancelled' AND deleted_at < ${before}
        AND NOT EXISTS (SELECT 1 FROM ${runs} WHERE runs.job_id = jobs.id)
      LIMIT ${limit} FOR UPDATE SKIP LOCKED
    ), ledger AS (
      DELETE FROM ${occurrences} WHERE job_id IN (SELECT id FROM batch)
    ), links AS (
      DELETE FROM ${jobDependencies} WHERE job_id IN (SELECT id FROM batch)
    )
    DELETE FROM ${jobs} WHERE id IN (SELECT id FROM batch)`,
  );
}

/** The oldest events first: the batch is taken in id order, so what is kept is always a suffix. */
export async function pruneEvents(db: Db, before: number, limit: number): Promise<number> {
  return deleted(
    db,
    // Materialized: as a plain IN subquery the planner may run it more than once, and with SKIP LOCKED
    // each run can take other rows, so one batch could delete more than `limit`.
    sql`WITH batch AS MATERIALIZED (
      SELECT id FROM ${events} WHERE at < ${before} ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED
    )
    DELETE FROM ${events} WHERE id IN (SELECT id FROM batch)`,
  );
}

/** Settled deliveries that ended before `before`; pending ones stay. */
export async function pruneDeliveries(db: Db, before: number, limit: number): Promise<number> {
  return deleted(
    db,
    sql`WITH batch AS MATERIALIZED (
      SELECT id FROM ${deliveries}
      WHERE state <> 'pending' AND coalesce(finished_at, created_at) < ${before}
      LIMIT ${limit} FOR UPDATE SKIP LOCKED
    )
    DELETE FROM ${deliveries} WHERE id IN (SELECT id FROM batch)`,
  );
}

async function deleted(db: Db, query: SQL): Promise<number> {
  return (await db.execute(query)).rowCount ?? 0;
}

/** Retention as the store runs it: each batch on the pool, its own transaction. */
export function postgresRetention(db: Db): Retention {
  return {
    pruneRunsFinishedBefore: (states, before, limit) => pruneRunsFinishedBefore(db, states, before, limit),
    pruneRunsBeyond: (keep, limit) => pruneRunsBeyond(db, keep, limit),
    pruneAudit: (before, limit) => pruneAudit(db, before, limit),
    purgeCancelledJobs: (before, limit) => purgeCancelledJobs(db, before, limit),
    pruneEvents: (before, limit) => pruneEvents(db, before, limit),
    pruneDeliveries: (before, limit) => pruneDeliveries(db, before, limit),
  };
}
