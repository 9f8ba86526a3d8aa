import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresPool } from '../../src/store/postgres/connection.js';
import { usePostgres } from '../support/postgres.js';

const postgres = usePostgres();

describe('a daemon stalled inside a transaction', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('given a session that holds a row lock and stops talking, when another session writes that row, then the server ends the stalled session and the write goes through', async () => {
    const database = await postgres.migratedDatabase();
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    cleanups.push(() => admin.end());
    await admin.query('CREATE TABLE stall_probe (id int PRIMARY KEY, term int NOT NULL)');
    await admin.query('INSERT INTO stall_probe VALUES (1, 1)');
    const pool = await openPostgresPool(database.url, { poolSize: 2, stalledTransactionTimeoutMs: 1_000 });
    cleanups.push(() => pool.end());

    // Given a fire transaction's FOR SHARE on a row (the shard map's), held by a process that then stops.
    const stalled = await pool.connect();
    cleanups.push(async () => stalled.release(true));
    await stalled.query('BEGIN');
    await stalled.query('SELECT term FROM stall_probe WHERE id = 1 FOR SHARE');

    // When another node publishes (an UPDATE of that row), it is not held up for as long as the stall lasts.
    const published = admin.query('UPDATE stall_probe SET term = 2 WHERE id = 1').then(() => 'published');
    const stuck = new Promise((resolve) => setTimeout(() => resolve('still waiting after 30 s'), 30_000));
    expect(await Promise.race([published, stuck])).toBe('published');

    // And the stalled session, when it wakes, finds its transaction gone rather than committing it.
    await expect(stalled.query('COMMIT')).rejects.toThrow();
  });
});
