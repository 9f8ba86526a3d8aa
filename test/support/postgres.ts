import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { migratePostgres } from '../../src/store/postgres/connection.js';

export interface TestDatabase {
  /** Connects to this database alone. */
  url: string;
  /** Drops a fresh database; the shared one stays until the file ends. */
  drop: () => Promise<void>;
}

export interface PostgresForTests {
  /**
   * The file's migrated database, emptied of every row: cheap enough for each test (a few ms). Tests of
   * one file run one after another, so they never share it at the same time.
   */
  migratedDatabase: () => Promise<TestDatabase>;
  /**
   * A new database with no tables, dropped after (CREATE DATABASE: 20–250 ms depending on load), for
   * tests of migrations or of settings of the database itself.
   */
  freshDatabase: () => Promise<TestDatabase>;
}

/**
 * Databases on the run's one PostgreSQL server (see postgres-server.ts). Call at the top of a test
 * file; its afterAll drops whatever the file made.
 */
export function usePostgres(): PostgresForTests {
  let admin: Promise<{ client: pg.Client; serverUrl: string }> | undefined;
  let shared: Promise<{ database: TestDatabase; client: pg.Client; emptyAll: string }> | undefined;
  const live = new Set<string>();

  const connectAdmin = () =>
    (admin ??= (async () => {
      const serverUrl = await askBroker();
      return { client: await connect(serverUrl), serverUrl };
    })());

  async function create(): Promise<TestDatabase> {
    const { client, serverUrl } = await connectAdmin();
    const name = `sched_test_${process.pid}_${randomBytes(5).toString('hex')}`;
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
    live.add(name);
    return { url: databaseUrl(serverUrl, name), drop: () => drop(name) };
  }

  async function drop(name: string): Promise<void> {
    if (!live.delete(name)) return;
    const { client } = await connectAdmin();
    // FORCE: a test that failed before closing its store must not keep the database alive.
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
  }

  const migratedDatabase = async (): Promise<TestDatabase> => {
    shared ??= (async () => {
      const database = await create();
      await migratePostgres(database.url, 'sched-test');
      const client = await connect(database.url);
      return { database, client, emptyAll: await deleteEverything(client) };
    })();
    const { database, client, emptyAll } = await shared;
    await client.query(emptyAll);
    return { url: database.url, drop: async () => undefined };
  };

  afterAll(async () => {
    if (shared) await (await shared).client.end();
    if (!admin) return;
    for (const name of [...live]) await drop(name);
    await (await admin).client.end();
  });

  return { migratedDatabase, freshDatabase: create };
}

/**
 * One round trip of DELETEs over every table of the schema (TRUNCATE is 10x slower here). Tables that
 * others reference come last, so foreign keys (runs → jobs) hold at each step.
 */
async function deleteEverything(client: pg.Client): Promise<string> {
  const { rows } = await client.query<{ name: string }>(`
    SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind = 'r'
    ORDER BY (SELECT count(*) FROM pg_constraint f WHERE f.contype = 'f' AND f.confrelid = c.oid), c.relname`);
  return rows.map((row) => `DELETE FROM ${client.escapeIdentifier(row.name)};`).join('\n');
}

let brokerAnswer: Promise<string> | undefined;

/** The server's URL, from the global setup's broker (which starts the server on the first ask). */
function askBroker(): Promise<string> {
  return (brokerAnswer ??= (async () => {
    const response = await fetch(inject('schedPostgresBroker'));
    const body = (await response.json()) as { url?: string; error?: string };
    if (!body.url) throw new Error(`the test PostgreSQL server is not available:\n${body.error}`);
    return body.url;
  })());
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}
