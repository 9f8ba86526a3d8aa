import type pg from 'pg';
import { SqlStore } from '../sql/sql-store.js';
import { openPostgresPool } from './connection.js';
import type { PostgresConnectionOptions } from './connection.js';
import { PostgresDialect } from './postgres-dialect.js';
import type { PostgresServer } from './tls-options.js';

export type { PostgresConnectionOptions } from './connection.js';

/**
 * Opens the Store on a PostgreSQL database (a `postgres://` URL, with its TLS settings), bringing its schema up to date first.
 * Several daemons may open the same database at once: migrations run under an advisory lock.
 */
export async function openPostgresStore(
  server: PostgresServer,
  options: PostgresConnectionOptions = {},
): Promise<PostgresStore> {
  return new PostgresStore(await openPostgresPool(server, options), server);
}

/** The Store on a shared PostgreSQL database (see PostgresDialect for how it writes). */
export class PostgresStore extends SqlStore {
  /** Takes a pool from `openPostgresPool`, whose schema it relies on; `close()` ends the pool. */
  constructor(pool: pg.Pool, server: PostgresServer) {
    super(new PostgresDialect(pool, server));
  }
}
