import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import pg from 'pg';
import { postgresClientConfig, type PostgresServer } from './tls-options.js';

// Both src/store/postgres/ (under vitest) and dist/store/postgres/ sit three levels below the package root.
const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../../drizzle/postgres', import.meta.url));

/**
 * The key of the session-level advisory lock held while migrating ("schedmig" in ASCII). Every daemon
 * takes the same one, so when several start at once, one migrates and the others wait, then find the
 * journal up to date. Without it, their CREATE TABLEs race on the catalog and all but one daemon fail
 * with a unique violation (pg_type_typname_nsp_index): the concurrent-open test shows it every time.
 */
const MIGRATION_LOCK_KEY = '8314604121741945191';

/** Our own journal table: a shared database may hold other drizzle apps' `__drizzle_migrations`. */
export const MIGRATIONS_TABLE = { migrationsSchema: 'drizzle', migrationsTable: '__sched_migrations' };

export interface PostgresConnectionOptions {
  /** Connections held open at most (default 10: several connections share WAL flushes). */
  poolSize?: number;
  /** Shown in `pg_stat_activity`, so an operator can tell the daemons apart. */
  applicationName?: string;
  /**
   * How long the server lets a session sit idle inside a transaction before it ends the session. A daemon
   * stalled mid-transaction (stopped, frozen, cut off with its TCP connection still open) otherwise keeps
   * its row locks for as long as it is stalled: a fire transaction's FOR SHARE on the shard map then holds
   * up the next map's publish, and every fire queued behind that, on every node. Off when not given.
   */
  stalledTransactionTimeoutMs?: number;
}

/** Brings the schema up to date on one dedicated connection, under the migration lock. */
export async function migratePostgres(server: PostgresServer, applicationName: string): Promise<void> {
  const config = { migrationsFolder: MIGRATIONS_FOLDER, ...MIGRATIONS_TABLE };
  const newest = Math.max(...readMigrationFiles(config).map((migration) => migration.folderMillis));
  const client = new pg.Client({ ...postgresClientConfig(server), application_name: applicationName });
  // A server going away mid-migration fails the query in progress; the event alone must not end the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    // The usual start finds the schema current and needs neither the lock nor DDL rights, so daemons
    // may run as a role that cannot create schemas once an operator has migrated.
    if ((await lastAppliedMigration(client)) >= newest) return;
    // Session-level, not transaction-level: drizzle's migrator commits on its own. The lock also dies
    // with the session, so a daemon that crashes while migrating does not block the others.
    await client.query('SELECT pg_advisory_lock($1::int8)', [MIGRATION_LOCK_KEY]);
    await migrate(drizzle({ client }), config);
    await client.query('SELECT pg_advisory_unlock($1::int8)', [MIGRATION_LOCK_KEY]);
  } finally {
    await client.end();
  }
}

/** The journal's newest `created_at` (a migration folder's timestamp); 0 when nothing was applied. */
async function lastAppliedMigration(client: pg.Client): Promise<number> {
  const journal = `${MIGRATIONS_TABLE.migrationsSchema}.${MIGRATIONS_TABLE.migrationsTable}`;
  const { rows } = await client.query<{ exists: boolean }>('SELECT to_regclass($1) IS NOT NULL AS exists', [
    journal,
  ]);
  if (!rows[0]?.exists) return 0;
  const last = await client.query<{ created_at: string | null }>(
    `SELECT max(created_at) AS created_at FROM ${journal}`,
  );
  return Number(last.rows[0]?.created_at ?? 0);
}

/** The pool the store works on, after the schema is brought up to date. */
export async function openPostgresPool(
  server: PostgresServer,
  options: PostgresConnectionOptions = {},
): Promise<pg.Pool> {
  const applicationName = options.applicationName ?? 'sched';
  await migratePostgres(server, applicationName);
  const pool = new pg.Pool({
    ...postgresClientConfig(server),
    max: options.poolSize ?? 10,
    application_name: applicationName,
    idle_in_transaction_session_timeout: options.stalledTransactionTimeoutMs,
  });
  // An idle connection that the server closes (restart, idle timeout) is dropped by the pool and the
  // next query opens a new one; without a listener its 'error' event would crash the daemon.
  pool.on('error', () => undefined);
  // pg-pool listens for a connection's 'error' only while it is idle. One the server ends while it is
  // checked out (a restart between two statements of a transaction, on a loaded host) emits 'error' with
  // no listener, and that ends the process. Nothing is lost by listening: the holder's pending and later
  // queries fail with the error, and the pool discards the connection when it is released.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}
