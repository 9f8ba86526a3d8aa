import { and, eq } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { alias } from 'drizzle-orm/sqlite-core';
import { param, runEndSet, statePredicates } from '../sql/columns.js';
import type { QueryBuilder, QueryChain, Statement } from '../sql/query-builder.js';
import { sqliteRowLimit } from '../sql/row-limit.js';
import { defineStatements } from '../sql/statements.js';
import type { StoreTables } from '../sql/tables.js';
import * as schema from './schema.js';

export const sqliteTables = { ...schema, upstreamJobs: alias(schema.jobs, 'upstream') } satisfies StoreTables;

/** The store's queries, prepared once per connection. */
export function prepareStatements(db: BetterSQLite3Database) {
  // drizzle's SQLite builder has the shared builder's methods; the facade only forgets its own types.
  const builder = db as unknown as QueryBuilder;
  const { runs, jobStateCounts } = sqliteTables;
  return {
    ...defineStatements(builder, sqliteTables, {
      prepare: (query) => prepared(query),
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
      builder
        .update(runs)
        .set(runEndSet(sqliteTables))
        .where(and(eq(runs.id, param('id')), statePredicates(sqliteTables).unfinished)),
    ),
  };
}

function prepared<Row>(query: QueryChain): Statement<Row> {
  return (query as unknown as { prepare(): Statement<Row> }).prepare();
}
