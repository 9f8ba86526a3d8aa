import { and, eq, sql } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { alias } from 'drizzle-orm/pg-core';
import { jobInState } from '../job-index-conditions.js';
import { param, runColumns, runEndSet, statePredicates } from '../sql/columns.js';
import type { QueryBuilder, QueryChain, Statement } from '../sql/query-builder.js';
import type { RunRecord } from '../sql/records.js';
import { postgresRowLimit } from '../sql/row-limit.js';
import { defineStatements } from '../sql/statements.js';
import type { StoreTables } from '../sql/tables.js';
import * as schema from './schema.js';

export const postgresTables = {
  ...schema,
  upstreamJobs: alias(schema.jobs, 'upstream'),
} satisfies StoreTables;

/**
 * The store's queries as named prepared statements: built once per connection handle rather than per call,
 * and parsed and planned once per server connection.
 */
export function prepareStatements(db: NodePgDatabase) {
  // drizzle's PostgreSQL builder has the shared builder's methods; the facade only forgets its own types.
  const builder = db as unknown as QueryBuilder;
  const { runs, jobs } = postgresTables;
  return {
    ...defineStatements(builder, postgresTables, {
      prepare: (query, name) => prepared(query, name),
      rowLimit: postgresRowLimit,
      /**
       * NO KEY: the id stays, so runs being inserted for the job (their foreign key takes KEY SHARE) need
       * not wait.
       */
      lockForUpdate: (query) =>
        (query as unknown as { for(strength: string): QueryChain }).for('no key update'),
      /**
       * Counted where asked, over the state's partial index (named literally, so the plan uses it): the read
       * is asynchronous here, and a counter row that every create and cancel updated would serialise the
       * daemons writing jobs.
       */
      countJobsInState: (state) =>
        builder
          .select({ count: sql<number>`count(*)`.mapWith(Number) })
          .from(jobs)
          .where(jobInState(state)),
    }),
    /** Records an outcome if the run is still unfinished, and returns it with its job's name, in one statement. */
    finishRun: prepared<RunRecord>(
      builder
        .update(runs)
        .set(runEndSet(postgresTables))
        .from(jobs)
        .where(
          and(eq(runs.id, param('id')), eq(jobs.id, runs.jobId), statePredicates(postgresTables).unfinished),
        )
        .returning(runColumns(postgresTables)),
      'sched_finish_run',
    ),
  };
}

function prepared<Row>(query: QueryChain, name: string): Statement<Row> {
  return (query as unknown as { prepare(name: string): Statement<Row> }).prepare(name);
}
