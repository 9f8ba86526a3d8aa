import { desc, eq, type Column, type Placeholder, type SQL } from 'drizzle-orm';
import type { Delivery } from '../../core/notify/delivery.js';
import type { RunSummary } from '../../core/run.js';
import { deliveryColumns, param, runSummaryColumns } from './columns.js';
import type { QueryBuilder, QueryChain, RowLimit, Statement } from './query-builder.js';
import type { StoreTables } from './tables.js';

/**
 * The reads of `sched show` beyond the job itself: a job's latest runs and notifications. The lists they
 * come from take filters that vary, and a query built per call (drizzle's build, then SQLite's prepare) cost
 * most of a get by name; these are the shape every `show` asks for, prepared once per connection.
 */
export function defineJobDetailStatements(
  db: QueryBuilder,
  tables: StoreTables,
  prepare: <Row>(name: string, query: QueryChain) => Statement<Row>,
  rowLimit: (limit: Placeholder) => RowLimit,
) {
  const { runs, jobs, deliveries } = tables;
  /** A job's rows of one table with its name, newest first, as far as the `limit` placeholder. */
  const latestOfJob = <Row>(name: string, columns: Columns, jobId: Column, newestFirst: SQL[]) =>
    prepare<Row>(
      name,
      db
        .select(columns)
        .from(jobId.table)
        .innerJoin(jobs, eq(jobs.id, jobId))
        .where(eq(jobId, param('jobId')))
        .orderBy(...newestFirst)
        .limit(rowLimit(param('limit'))),
    );
  return {
    /** As listRuns({ jobId, limit }) asks it. */
    latestRunsOfJob: latestOfJob<RunSummary>('latest_runs_of_job', runSummaryColumns(tables), runs.jobId, [
      desc(runs.id),
    ]),
    /** As listDeliveries({ jobId, limit }) asks it. */
    latestDeliveriesOfJob: latestOfJob<Delivery>(
      'latest_deliveries_of_job',
      deliveryColumns(tables),
      deliveries.jobId,
      [desc(deliveries.createdAt), desc(deliveries.id)],
    ),
  };
}

type Columns = Parameters<QueryBuilder['select']>[0];
