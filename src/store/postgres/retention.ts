import { and, inArray, isNotNull, lt, notExists, sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { RunState } from '../../core/run.js';
import { auditLog, jobs, runs } from './schema.js';
import type { Db } from './session.js';

// Each is one DELETE, so one short transaction per batch. SKIP LOCKED: when several daemons share the
// database and prune at once, each takes rows the others are not deleting instead of queueing behind them.

export async function pruneRunsFinishedBefore(
  db: Db,
  states: RunState[],
  before: number,
  limit: number,
): Promise<number> {
  const batch = db
    .select({ id: runs.id })
    .from(runs)
    .where(and(isNotNull(runs.finishedAt), lt(runs.finishedAt, before), inArray(runs.state, states)))
    .limit(limit)
    .for('update', { skipLocked: true });
  const result = await db.delete(runs).where(inArray(runs.id, batch));
  return result.rowCount ?? 0;
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
  const batch = db
    .select({ id: auditLog.id })
    .from(auditLog)
    .where(lt(auditLog.at, before))
    .limit(limit)
    .for('update', { skipLocked: true });
  const result = await db.delete(auditLog).where(inArray(auditLog.id, batch));
  return result.rowCount ?? 0;
}

/** Cancelled jobs whose runs retention already removed; the runs' foreign key guards a late insert. */
export async function purgeCancelledJobs(db: Db, before: number, limit: number): Promise<number> {
  const batch = db
    .select({ id: jobs.id })
    .from(jobs)
    .where(
      and(
        sql`${jobs.state} = 'cancelled'`,
        lt(jobs.deletedAt, before),
        notExists(
          db
            .select({ one: sql`1` })
            .from(runs)
            .where(sql`${runs.jobId} = ${jobs.id}`),
        ),
      ),
    )
    .limit(limit)
    .for('update', { skipLocked: true });
  const result = await db.delete(jobs).where(inArray(jobs.id, batch));
  return result.rowCount ?? 0;
}

async function deleted(db: Db, query: SQL): Promise<number> {
  return (await db.execute(query)).rowCount ?? 0;
}
