import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresPool } from '../../src/store/postgres/connection.js';
import { usePostgres } from '../support/postgres.js';

const postgres = usePostgres();

describe('a PostgreSQL connection the server ends', () => {
  const uncaught: Error[] = [];
  let noticeUncaught: () => void = () => undefined;
  const record = (error: Error) => {
    uncaught.push(error);
    noticeUncaught();
  };
  const cleanups: Array<() => Promise<unknown>> = [];

  afterEach(async () => {
    process.off('uncaughtException', record);
    uncaught.length = 0;
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('while a holder has it checked out between two statements fails that holder, not the process', async () => {
    const database = await postgres.migratedDatabase();
    const pool = await openPostgresPool(database.url, { poolSize: 2, applicationName: 'sched-test-loss' });
    cleanups.push(() => pool.end());
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    cleanups.push(() => admin.end());
    process.on('uncaughtException', record);

    // Given a connection checked out of the store's pool, as a transaction holds one between statements.
    const held = await pool.connect();
    let released = false;
    const release = () => {
      if (!released) held.release(true);
      released = true;
    };
    cleanups.push(async () => release());
    const { rows } = await held.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const ended = new Promise((resolve) => held.once('end', resolve));
    const crashed = new Promise<void>((resolve) => (noticeUncaught = resolve));

    // When the server ends it, as a restart ends every backend.
    await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    await Promise.race([ended, crashed]);

    // Then the process goes on: the holder's next statement fails, and the pool serves others anew.
    expect(uncaught.map((error) => error.message)).toEqual([]);
    await expect(held.query('SELECT 1')).rejects.toThrow();
    release();
    const again = await pool.query<{ one: number }>('SELECT 1 AS one');
    expect(again.rows[0]!.one).toBe(1);
  });
});
