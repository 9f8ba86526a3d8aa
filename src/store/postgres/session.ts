import { drizzle } from 'drizzle-orm/node-postgres';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type pg from 'pg';
import { prepareStatements } from './statements.js';
import type { Statements } from './statements.js';

export type Db = NodePgDatabase;

/** A drizzle handle on a pool or on one pooled connection, with the store's statements prepared on it. */
export interface Session {
  db: Db;
  statements: Statements;
}

export function openSession(client: pg.Pool | pg.PoolClient): Session {
  const db = drizzle({ client });
  return { db, statements: prepareStatements(db) };
}

/** One session per pooled connection, made on first use (the pool reuses its clients). */
const sessions = new WeakMap<pg.PoolClient, Session>();

/**
 * Runs `work` between BEGIN and COMMIT on one pooled connection, and rolls back when it throws (errors
 * thrown inside `work` may be SchedErrors mapped from a failed statement). Not drizzle's own
 * `transaction()`: that returns the connection to the pool even when ROLLBACK failed, and a failing
 * ROLLBACK hides the error that caused it. Here a connection whose ROLLBACK failed is destroyed.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (session: Session) => Promise<T>): Promise<T> {
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
