import { and, eq } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import { param, runEndSet, statePredicates } from '../sql/columns.js';
import type { QueryBuilder, QueryChain, Statement } from '../sql/query-builder.js';
import { sqliteRowLimit } from '../sql/row-limit.js';
import { positionalRun, type PositionalRun, type SqliteDrizzle } from './positional-run.js';
import { defineStatements } from '../sql/statements.js';
import type { StoreTables } from '../sql/tables.js';
import * as schema from './schema.js';

export const sqliteTables = { ...schema, upstreamJobs: alias(schema.jobs, 'upstream') } satisfies StoreTables;

/** The store's queries, prepared once per connection. */
export function prepareStatements(db: SqliteDrizzle) {
  // drizzle's SQLite builder has the shared builder's methods; the facade only forgets its own types.
  const builder = db as unknown as QueryBuilder;
  const { runs, jobStateCounts } = sqliteTables;
  return {
    ...defineStatements(builder, sqliteTables, {
      prepare: (query) => prepared(db, query),
      rowLimit: sqliteRowLimit,
      // One daemon is the only writer, and its transaction already holds the database.
      lockForUpdate: (query) => query,
      // A row the triggers on jobs keep (see jobStateCounts): a count(*) here holds the daemon's one thread.
      countJobsInState: (state) =>
        builder
          .select({ count: jobStateCounts.count })
          .from(jobStateCounts)
          .where(eq(jobStateCounts.state, state)),
    }),
    /** SQLite's RETURNING cannot name the job's table, so the finished run is read back after. */
    finishRun: prepared<never>(
      db,
      builder
        .update(runs)
        .set(runEndSet(sqliteTables))
        .where(and(eq(runs.id, param('id')), statePredicates(sqliteTables).unfinished)),
    ),
  };
}

/** A statement of the SQLite store as its session runs it: better-sqlite3 answers at once. */
export interface SqliteStatement {
  get(params?: object): unknown;
  all(params?: object): unknown[];
  run: PositionalRun;
}

/** What drizzle's prepared statement gives: the reads, and the query a positional run is made from. */
type DrizzleStatement = Omit<SqliteStatement, 'run'> & { getQuery(): { sql: string; params: unknown[] } };

/** drizzle prepares the statement and reads with it; its writes run positionally (see positionalRun). */
function prepared<Row>(db: SqliteDrizzle, query: QueryChain): Statement<Row> {
  const statement = (query as unknown as { prepare(): DrizzleStatement }).prepare();
  const runnable: SqliteStatement & Pick<DrizzleStatement, 'getQuery'> = {
    getQuery: () => statement.getQuery(),
    get: (params) => statement.get(params),
    all: (params) => statement.all(params),
    run: positionalRun(db.$client, statement.getQuery()),
  };
  return runnable as Statement<Row>;
}
