import { drizzle } from 'drizzle-orm/node-postgres';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type pg from 'pg';

export type Db = NodePgDatabase;

/** One drizzle handle per pooled connection, made on first use (the pool reuses its clients). */
const handles = new WeakMap<pg.PoolClient, Db>();

/**
 * Runs `work` between BEGIN and COMMIT on one pooled connection, and rolls back when it throws (errors
 * thrown inside `work` may be SchedErrors mapped from a failed statement). Not drizzle's own
 * `transaction()`: that returns the connection to the pool even when ROLLBACK failed, and a failing
 * ROLLBACK hides the error that caused it. Here a connection whose ROLLBACK failed is destroyed.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (db: Db) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let db = handles.get(client);
  if (!db) {
    db = drizzle({ client });
    handles.set(client, db);
  }
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(db);
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
