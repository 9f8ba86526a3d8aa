import net from 'node:net';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { SchedError } from '../../src/core/errors.js';
import { isStoreUnreachable, unreachableReason } from '../../src/store/unreachable.js';
import { usePostgres } from '../support/postgres.js';

const postgres = usePostgres();

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('isStoreUnreachable: what puts a node in degraded mode', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('given a store call to a server that is not there, says the store is unreachable', async () => {
    const database = await postgres.migratedDatabase();
    // The database's address with a port nobody listens on, as a stopped server leaves it.
    const port = await closedPort();
    const client = new pg.Client({ connectionString: database.url.replace(/:\d+\//, `:${port}/`) });
    const error = await client.connect().then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(isStoreUnreachable(error)).toBe(true);
    // Wrapped as drizzle wraps a driver's error, whose message (the statement and its values) is not repeated.
    const wrapped = new Error('Failed query: insert … params: secret', { cause: error });
    expect(isStoreUnreachable(wrapped)).toBe(true);
    expect(unreachableReason(wrapped)).toBe(`connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  it('given a query whose connection the server ends (a restart), says the store is unreachable', async () => {
    const database = await postgres.migratedDatabase();
    const admin = new pg.Client({ connectionString: database.url });
    const victim = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await victim.connect();
    victim.on('error', () => undefined);
    cleanups.push(
      () => admin.end(),
      () => victim.end().catch(() => undefined),
    );
    const { rows } = await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');

    const running = victim.query('SELECT pg_sleep(30)').then(
      () => null,
      (failure: unknown) => failure,
    );
    await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);

    expect(isStoreUnreachable(await running)).toBe(true);
  });

  it('given a change the store refuses, does not', async () => {
    const database = await postgres.migratedDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    cleanups.push(() => client.end());
    const refused = await client.query('SELECT 1/0').then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(refused).toBeInstanceOf(Error);
    expect(isStoreUnreachable(refused)).toBe(false);
    expect(isStoreUnreachable(new SchedError('VERSION_CONFLICT', 'changed meanwhile'))).toBe(false);
  });

  it('given STORE_UNAVAILABLE from the daemon, says the store is unreachable', () => {
    expect(isStoreUnreachable(new SchedError('STORE_UNAVAILABLE', 'cannot reach it'))).toBe(true);
  });

  it('given NO_QUORUM from a peer cut off from the majority, says the store is unreachable (the log is its store)', () => {
    expect(isStoreUnreachable(new SchedError('NO_QUORUM', 'no majority'))).toBe(true);
    expect(isStoreUnreachable(new Error('replay failed', { cause: new SchedError('NO_QUORUM', 'x') }))).toBe(
      true,
    );
  });
});
