import type pg from 'pg';
import { SqlStore } from '../sql/sql-store.js';
import { openPostgresPool } from './connection.js';
import type { PostgresConnectionOptions } from './connection.js';
import { PostgresDialect } from './postgres-dialect.js';

export type { PostgresConnectionOptions } from './connection.js';

/**
 * Opens the Store on a PostgreSQL database (a `postgres://` URL), bringing its schema up to date first.
 * Several daemons may open the same database at once: migrations run under an advisory lock.
 */
export async function openPostgresStore(
  url: string,
  options: PostgresConnectionOptions = {},
): Promise<PostgresStore> {
  return new PostgresStore(await openPostgresPool(url, options), url);
}

/** The Store on a shared PostgreSQL database (see PostgresDialect for how it writes). */
export class PostgresStore extends SqlStore {
  /** Takes a pool from `openPostgresPool`, whose schema it relies on; `close()` ends the pool. */
  constructor(pool: pg.Pool, url: string) {
    super(new PostgresDialect(pool, url));
  }
}
