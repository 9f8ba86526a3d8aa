import type Database from 'better-sqlite3';
import type { RunState } from '../../core/run.js';
import type { Retention } from '../sql/dialect.js';

// Retention runs rarely, so these statements are prepared per call rather than kept on the connection.

/**
 * Deletes up to `limit` finished runs in `states` that finished before `before`, then, with what is left of
 * `limit`, ledger records decided before `before`; returns how many rows went. So the ledger is kept as long
 * as the shortest-kept runs, and a backlog of either drains batch by batch.
 */
export function deleteRunsFinishedBefore(
  db: Database.Database,
  states: RunState[],
  before: number,
  limit: number,
): number {
  const placeholders = states.map(() => '?').join(', ');
  const runs = db
    .prepare(
      `DELETE FROM runs WHERE id IN (SELECT id FROM runs WHERE finished_at IS NOT NULL AND finished_at < ? AND state IN (${placeholders}) LIMIT +?)`,
    )
    .run(before, ...states, limit).changes;
  if (runs >= limit) return runs;
  return runs + deleteOccurrencesBefore(db, before, limit - runs);
}

function deleteOccurrencesBefore(db: Database.Database, before: number, limit: number): number {
  return db
    .prepare(
      `DELETE FROM occurrences WHERE rowid IN (SELECT rowid FROM occurrences WHERE decided_at < ? LIMIT +?)`,
    )
    .run(before, limit).changes;
}

/** Deletes up to `limit` of the oldest finished runs of jobs that keep more than `keep`. */
export function deleteRunsBeyond(db: Database.Database, keep: number, limit: number): number {
  const crowded = db
    .prepare('SELECT job_id AS jobId FROM runs GROUP BY job_id HAVING count(*) > ? LIMIT 100')
    .all(keep) as Array<{ jobId: string }>;
  const oldest = db.prepare(
    `SELECT id FROM runs WHERE job_id = ? AND state NOT IN ('scheduled', 'running') ORDER BY id DESC LIMIT +? OFFSET ?`,
  );
  const remove = db.prepare('DELETE FROM runs WHERE id = ?');
  let deleted = 0;
  for (const { jobId } of crowded) {
    for (const { id } of oldest.all(jobId, limit - deleted, keep) as Array<{ id: string }>)
      deleted += remove.run(id).changes;
    if (deleted >= limit) break;
  }
  return deleted;
}

/** Up to `limit` audit entries older than `before`, found from the index on `at`. */
export const DELETE_AUDIT_BEFORE =
  'DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < ? LIMIT +?)';

/** Deletes up to `limit` audit entries older than `before`. */
export function deleteAuditBefore(db: Database.Database, before: number, limit: number): number {
  return db.prepare(DELETE_AUDIT_BEFORE).run(before, limit).changes;
}

/**
 * Deletes up to `limit` jobs cancelled before `before` whose runs are all gone, with their ledger records
 * (and any dependency links, which cancelling already removed) first, for the foreign keys.
 */
export function deleteCancelledJobsWithoutRuns(db: Database.Database, before: number, limit: number): number {
  const ids = db
    .prepare(
      `SELECT id FROM jobs WHERE state = 'cancelled' AND deleted_at < ?
         AND NOT EXISTS (SELECT 1 FROM runs WHERE runs.job_id = jobs.id) LIMIT +?`,
    )
    .pluck()
    .all(before, limit) as string[];
  if (ids.length === 0) return 0;
  const batch = JSON.stringify(ids);
  db.prepare('DELETE FROM occurrences WHERE job_id IN (SELECT value FROM json_each(?))').run(batch);
  db.prepare('DELETE FROM job_dependencies WHERE job_id IN (SELECT value FROM json_each(?))').run(batch);
  return db.prepare('DELETE FROM jobs WHERE id IN (SELECT value FROM json_each(?))').run(batch).changes;
}

/**
 * Of the `limit` oldest events (in id order, which is the order they were written), those written before
 * `before`. Events have no index on `at`: asked for the old ones among all of them, SQLite read every event
 * when none was old (over a second of a held event loop with a million stored); the window reads `limit`
 * rows at most. An event whose clock stepped back behind newer ones waits until those are old too.
 */
const DELETE_OLDEST_EVENTS_BEFORE = `DELETE FROM events WHERE id IN (
   SELECT id FROM (SELECT id, at FROM events ORDER BY id LIMIT +?) WHERE at < ?)`;

/** Deletes up to `limit` of the oldest events written before `before`, in id order. */
export function deleteEventsBefore(db: Database.Database, before: number, limit: number): number {
  return db.prepare(DELETE_OLDEST_EVENTS_BEFORE).run(limit, before).changes;
}

/** Deletes up to `limit` settled deliveries that ended before `before`; pending ones stay. */
export function deleteDeliveriesBefore(db: Database.Database, before: number, limit: number): number {
  return db
    .prepare(
      `DELETE FROM deliveries WHERE id IN (SELECT id FROM deliveries
         WHERE state <> 'pending' AND coalesce(finished_at, created_at) < ? LIMIT +?)`,
    )
    .run(before, limit).changes;
}

/** Retention as the store runs it: each batch one group-committed write. */
export function sqliteRetention(db: Database.Database, write: <T>(work: () => T) => Promise<T>): Retention {
  return {
    pruneRunsFinishedBefore: (states, before, limit) =>
      write(() => deleteRunsFinishedBefore(db, states, before, limit)),
    pruneRunsBeyond: (keep, limit) => write(() => deleteRunsBeyond(db, keep, limit)),
    pruneAudit: (before, limit) => write(() => deleteAuditBefore(db, before, limit)),
    purgeCancelledJobs: (before, limit) => write(() => deleteCancelledJobsWithoutRuns(db, before, limit)),
    pruneEvents: (before, limit) => write(() => deleteEventsBefore(db, before, limit)),
    pruneDeliveries: (before, limit) => write(() => deleteDeliveriesBefore(db, before, limit)),
  };
}
