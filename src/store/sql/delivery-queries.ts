import { and, asc, count, desc, eq, gte, inArray, lte, ne } from 'drizzle-orm';
import type { Delivery, DeliveryAttempt, DeliveryState, NewDelivery } from '../../core/notify/delivery.js';
import { occurrenceToRow } from '../ledger-rows.js';
import type { DeliveryQuery, OverdueMark } from '../store.js';
import type { StoreDialect } from './dialect.js';
import { step, type Script } from './script.js';
import type { Session } from './session.js';
import type { StoreTables } from './tables.js';
import { deliveryColumns } from './columns.js';

// Notifications and overdue marks, written once for both dialects. Every write names its RETURNING
// columns: a SQLite session runs a built query with all(), which only statements that return rows allow.

/** Inserts deliveries, dropping any whose dedup key is taken; yields how many were new. */
export function* insertDeliveries(
  tables: StoreTables,
  session: Session,
  rows: readonly NewDelivery[],
): Script<number> {
  let inserted = 0;
  for (const row of rows) {
    const values = { ...row, state: 'pending', attempts: 0, finishedAt: null, answer: null, lastError: null };
    const returned = yield* step(
      session.query<{ id: string }>((db) =>
        db
          .insert(tables.deliveries)
          .values(values)
          .onConflictDoNothing()
          .returning({ id: tables.deliveries.id }),
      ),
    );
    inserted += returned.length;
  }
  return inserted;
}

export async function dueDeliveries(
  dialect: StoreDialect,
  until: number,
  limit: number,
): Promise<Delivery[]> {
  const { deliveries, jobs } = dialect.tables;
  return dialect.session.query<Delivery>((db) =>
    db
      .select(deliveryColumns(dialect.tables))
      .from(deliveries)
      .innerJoin(jobs, eq(jobs.id, deliveries.jobId))
      .where(and(eq(deliveries.state, 'pending'), lte(deliveries.dueAt, until)))
      .orderBy(asc(deliveries.dueAt), asc(deliveries.id))
      .limit(dialect.rowLimit(limit)),
  );
}

export async function claimDelivery(
  dialect: StoreDialect,
  id: string,
  dueAt: number,
  leaseUntil: number,
): Promise<boolean> {
  const { deliveries } = dialect.tables;
  const rows = await dialect.write((session) =>
    session.query<{ id: string }>((db) =>
      db
        .update(deliveries)
        .set({ dueAt: leaseUntil })
        .where(and(eq(deliveries.id, id), eq(deliveries.state, 'pending'), eq(deliveries.dueAt, dueAt)))
        .returning({ id: deliveries.id }),
    ),
  );
  return rows.length === 1;
}

export async function recordDeliveryAttempt(
  dialect: StoreDialect,
  id: string,
  attempt: DeliveryAttempt,
): Promise<boolean> {
  const { deliveries } = dialect.tables;
  const rows = await dialect.write((session) =>
    session.query<{ id: string }>((db) =>
      db
        .update(deliveries)
        .set({ ...attempt })
        .where(and(eq(deliveries.id, id), eq(deliveries.state, 'pending')))
        .returning({ id: deliveries.id }),
    ),
  );
  return rows.length === 1;
}

export async function listDeliveries(dialect: StoreDialect, query: DeliveryQuery): Promise<Delivery[]> {
  // A job's latest notifications and nothing else, as `sched show` asks: the shape prepared once.
  if (query.jobId !== undefined && query.states === undefined) {
    const { session } = dialect;
    return session.all(session.statements.latestDeliveriesOfJob, { jobId: query.jobId, limit: query.limit });
  }
  const { deliveries, jobs } = dialect.tables;
  return dialect.session.query<Delivery>((db) =>
    db
      .select(deliveryColumns(dialect.tables))
      .from(deliveries)
      .innerJoin(jobs, eq(jobs.id, deliveries.jobId))
      .where(
        and(
          query.jobId === undefined ? undefined : eq(deliveries.jobId, query.jobId),
          query.states === undefined ? undefined : inArray(deliveries.state, query.states),
        ),
      )
      .orderBy(desc(deliveries.createdAt), desc(deliveries.id))
      .limit(dialect.rowLimit(query.limit)),
  );
}

export async function countDeliveries(
  dialect: StoreDialect,
  jobId: string,
  target: string,
  since: number,
  states: DeliveryState[],
): Promise<number> {
  const { deliveries } = dialect.tables;
  const rows = await dialect.session.query<{ count: number }>((db) =>
    db
      .select({ count: count().mapWith(Number) })
      .from(deliveries)
      .where(
        and(
          eq(deliveries.jobId, jobId),
          eq(deliveries.target, target),
          gte(deliveries.createdAt, since),
          ne(deliveries.kind, 'summary'),
          inArray(deliveries.state, states),
        ),
      ),
  );
  return rows[0]?.count ?? 0;
}

export function* markOverdue(dialect: StoreDialect, session: Session, mark: OverdueMark): Script<boolean> {
  const { overdueJobs } = dialect.tables;
  const marked = yield* step(
    session.query<{ jobId: string }>((db) =>
      db
        .insert(overdueJobs)
        .values({ jobId: mark.jobId, since: mark.since })
        .onConflictDoNothing()
        .returning({ jobId: overdueJobs.jobId }),
    ),
  );
  if (marked.length === 0) return false;
  yield* step(session.insertOccurrences([occurrenceToRow(mark.note, dialect.encoding)]));
  yield* insertDeliveries(dialect.tables, session, mark.deliveries);
  return true;
}

export function* clearOverdue(
  dialect: StoreDialect,
  session: Session,
  jobId: string,
  deliveries: readonly NewDelivery[],
): Script<number | null> {
  const { overdueJobs } = dialect.tables;
  const cleared = yield* step(
    session.query<{ since: number }>((db) =>
      db.delete(overdueJobs).where(eq(overdueJobs.jobId, jobId)).returning({ since: overdueJobs.since }),
    ),
  );
  const since = cleared[0]?.since;
  if (since === undefined) return null;
  yield* insertDeliveries(dialect.tables, session, deliveries);
  return Number(since);
}

export async function listOverdue(dialect: StoreDialect): Promise<{ jobId: string; since: number }[]> {
  const { overdueJobs } = dialect.tables;
  return dialect.session.query<{ jobId: string; since: number }>((db) =>
    db.select({ jobId: overdueJobs.jobId, since: overdueJobs.since }).from(overdueJobs),
  );
}

export async function latestSuccess(
  dialect: StoreDialect,
  jobId: string,
): Promise<{ runId: string; finishedAt: number } | null> {
  const { runs } = dialect.tables;
  const rows = await dialect.session.query<{ runId: string; finishedAt: number }>((db) =>
    db
      .select({ runId: runs.id, finishedAt: runs.finishedAt })
      .from(runs)
      .where(and(eq(runs.jobId, jobId), eq(runs.state, 'succeeded')))
      .orderBy(desc(runs.finishedAt))
      .limit(dialect.rowLimit(1)),
  );
  return rows[0] ?? null;
}
