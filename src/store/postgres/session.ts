import { drizzle } from 'drizzle-orm/node-postgres';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type pg from 'pg';
import type { StoredOccurrence } from '../ledger-rows.js';
import type { QueryBuilder } from '../sql/query-builder.js';
import type { JobRecord, RunRecord } from '../sql/records.js';
import type { Params, Session } from '../sql/session.js';
import { assertMapInForce, notifyJobChanged, notifyRunWaiting } from './job-changes.js';
import { insertEventAndAnnounce, startRunAndAnnounce } from './event-outbox.js';
import { advanceNextRuns, insertEvents, insertRuns, runsInFlightOf, startRuns } from './fire-rows.js';
import { finishRuns } from './run-end-rows.js';
import { occurrences } from './schema.js';
import { prepareStatements } from './statements.js';

export type Db = NodePgDatabase;

/** Rows per INSERT: 7 parameters each, well under PostgreSQL's 65,535 per statement. */
const OCCURRENCES_PER_INSERT = 1000;

/** What drizzle's prepared PostgreSQL statements do. */
interface PgStatement {
  execute(params?: Params): Promise<unknown>;
}

/** A session on a pool (each statement its own transaction) or on one pooled connection. */
export interface PgSession extends Session {
  db: Db;
}

/** The store's statements prepared on a pool or on one pooled connection. */
export function openSession(client: pg.Pool | pg.PoolClient): PgSession {
  const db = drizzle({ client });
  const statements = prepareStatements(db);
  const execute = (statement: unknown, params?: Params) => (statement as PgStatement).execute(params);
  const all = async <Row>(statement: unknown, params?: Params) => (await execute(statement, params)) as Row[];
  return {
    db,
    statements,
    all,
    first: async <Row>(statement: unknown, params?: Params) => (await all<Row>(statement, params))[0],
    run: async (statement, params) => {
      await execute(statement, params);
    },
    jobByRef: async (ref) => (await all<JobRecord>(statements.jobByIdOrLiveName, { ref }))[0],
    query: async <Row>(build: (db: QueryBuilder) => unknown) =>
      await (build(db as unknown as QueryBuilder) as PromiseLike<Row[]>),
    finishRun: async (values) => (await all<RunRecord>(statements.finishRun, values))[0],
    finishRuns: (values) => finishRuns(client, values),
    insertOccurrences: async (rows: StoredOccurrence[]) => {
      for (let start = 0; start < rows.length; start += OCCURRENCES_PER_INSERT)
        await db
          .insert(occurrences)
          .values(rows.slice(start, start + OCCURRENCES_PER_INSERT))
          .onConflictDoNothing();
    },
    announceJobChange: (jobId) => notifyJobChanged(db, jobId),
    announceWaitingRun: (runId) => notifyRunWaiting(db, runId),
    assertMapInForce: (fence) => assertMapInForce(db, fence),
    advanceNextRuns: (advances) => advanceNextRuns(client, advances),
    runsInFlightOf: (keys) => runsInFlightOf(client, keys),
    insertRuns: (runs) => insertRuns(client, runs),
    insertEvents: (rows) => insertEvents(client, rows),
    insertEvent: (row) => insertEventAndAnnounce(client, row),
    startRun: (start, event) => startRunAndAnnounce(client, start, event),
    startRuns: (pids, events) => startRuns(client, pids, events),
  };
}

/** One session per pooled connection, made on first use (the pool reuses its clients). */
const sessions = new WeakMap<pg.PoolClient, PgSession>();

/**
 * Runs `work` between BEGIN and COMMIT on one pooled connection, and rolls back when it throws (errors
 * thrown inside `work` may be SchedErrors mapped from a failed statement). Not drizzle's own
 * `transaction()`: that returns the connection to the pool even when ROLLBACK failed, and a failing
 * ROLLBACK hides the error that caused it. Here a connection whose ROLLBACK failed is destroyed.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (session: PgSession) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let session = sessions.get(client);
  if (!session) {
    session = openSession(client);
    sessions.set(client, session);
  }
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(session);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
