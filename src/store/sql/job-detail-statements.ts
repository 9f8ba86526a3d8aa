import { desc, eq } from 'drizzle-orm';
import type { Delivery } from '../../core/notify/delivery.js';
import type { RunSummary } from '../../core/run.js';
import { deliveryColumns, param, runSummaryColumns } from './columns.js';
import type { QueryBuilder, QueryChain, Statement } from './query-builder.js';
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
) {
  const { runs, jobs, deliveries } = tables;
  return {
    /** As listRuns({ jobId, limit }) asks it: newest first. */
    latestRunsOfJob: prepare<RunSummary>(
      'latest_runs_of_job',
      db
        .select(runSummaryColumns(tables))
        .from(runs)
        .innerJoin(jobs, eq(jobs.id, runs.jobId))
        .where(eq(runs.jobId, param('jobId')))
        .orderBy(desc(runs.id))
        .limit(param('limit')),
    ),
    /** As listDeliveries({ jobId, limit }) asks it: newest first. */
    latestDeliveriesOfJob: prepare<Delivery>(
      'latest_deliveries_of_job',
      db
        .select(deliveryColumns(tables))
        .from(deliveries)
        .innerJoin(jobs, eq(jobs.id, deliveries.jobId))
        .where(eq(deliveries.jobId, param('jobId')))
        .orderBy(desc(deliveries.createdAt), desc(deliveries.id))
        .limit(param('limit')),
    ),
  };
}
