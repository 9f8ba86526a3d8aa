import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { normalizeJobInput } from '../../dist/core/normalize.js';
import { newId } from '../../dist/store/ids.js';
import { openPostgresStore } from '../../dist/store/postgres/postgres-store.js';
import { pipelined } from './pipeline.js';

const TIMEZONE = 'UTC';

/** The first instant of the grid `anchorMs + k·intervalMs` at or after `from`. */
export function firstInstantFrom(anchorMs, intervalMs, from) {
  return anchorMs + Math.max(0, Math.ceil((from - anchorMs) / intervalMs)) * intervalMs;
}

/**
 * Writes `count` jobs `every <intervalMs>` calling `targetUrl` straight into a PostgreSQL store that no
 * daemon has open yet, through the real PostgresStore.createJob (each create its own transaction, as a
 * daemon makes it), `depth` creates in flight. Job i is anchored at base + i·interval/count, base one
 * interval ago, so the jobs' instants lie evenly spread: count/interval fires per second at any time.
 * The definition is normalized once and cloned with new names and anchors (normalizing 100,000 jobs
 * would take longer than writing them). Each job's nextRunAt is written as its first instant from now;
 * `scheduleFrom` moves them all once the fill's own duration is known.
 * Returns { jobs: [{ id, anchorMs }], writeMs }.
 */
export async function writeSpreadJobs(url, { count, intervalMs, targetUrl, prefix, depth = 64 }) {
  const started = performance.now();
  const now = Date.now();
  const base = now - intervalMs;
  const template = normalizeJobInput(
    { name: `${prefix}-0`, every: `${intervalMs}ms`, http: targetUrl, timezone: TIMEZONE },
    { now: base, defaultTimezone: TIMEZONE },
  );
  if (template.schedule.kind !== 'every' || template.target.kind !== 'http')
    throw new Error(`unexpected template: ${JSON.stringify(template)}`);
  // As many connections as the server may comfortably serve; more creates than that only queue.
  const store = await openPostgresStore(url, { poolSize: 16, applicationName: 'sched-bench-fill' });
  const jobs = new Array(count);
  try {
    await pipelined(count, depth, async (i) => {
      const anchorMs = base + Math.floor((i * intervalMs) / count);
      const definition = {
        ...template,
        name: `${prefix}-${i}`,
        schedule: { ...template.schedule, anchorMs },
      };
      const job = await store.createJob(
        {
          id: newId(),
          definition,
          owner: os.userInfo().username,
          now,
          nextRunAt: firstInstantFrom(anchorMs, intervalMs, now),
        },
        { id: newId(), at: now, actor: 'bench', action: 'job.create' },
      );
      jobs[i] = { id: job.id, anchorMs };
    });
  } finally {
    await store.close();
  }
  return { jobs, writeMs: performance.now() - started };
}

/**
 * Sets every job's next_run_at to its first instant at or after `from` (one UPDATE, before any daemon
 * starts), then VACUUM ANALYZE, so the daemons meet a settled table rather than 100,000 dead row versions
 * and an autovacuum about to start. Adds `nextRunAt` to each job. Returns the time it took in ms.
 */
export async function scheduleFrom(url, jobs, intervalMs, from) {
  const started = performance.now();
  for (const job of jobs) job.nextRunAt = firstInstantFrom(job.anchorMs, intervalMs, from);
  const client = new pg.Client({ connectionString: url, application_name: 'sched-bench-fill' });
  await client.connect();
  try {
    const { rowCount } = await client.query(
      `UPDATE jobs SET next_run_at = v.next_run_at
         FROM unnest($1::text[], $2::int8[]) AS v(id, next_run_at)
        WHERE jobs.id = v.id`,
      [jobs.map((job) => job.id), jobs.map((job) => job.nextRunAt)],
    );
    if (rowCount !== jobs.length) throw new Error(`moved ${rowCount} of ${jobs.length} jobs' next runs`);
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
  return performance.now() - started;
}

/**
 * The runs the daemons fired on their own (trigger `schedule`, or `catchup` for an instant fired more than
 * the misfire threshold late), read after they stopped. Instants are epoch ms.
 */
export async function readFiredRuns(url) {
  const client = new pg.Client({ connectionString: url, application_name: 'sched-bench-read' });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT job_id, scheduled_for, created_at, due_at, started_at, finished_at, node, "trigger", state
         FROM runs WHERE "trigger" IN ('schedule', 'catchup')`,
    );
    return rows.map((row) => ({
      jobId: row.job_id,
      scheduledFor: Number(row.scheduled_for),
      createdAt: Number(row.created_at),
      dueAt: Number(row.due_at),
      startedAt: row.started_at === null ? null : Number(row.started_at),
      finishedAt: row.finished_at === null ? null : Number(row.finished_at),
      node: row.node,
      trigger: row.trigger,
      state: row.state,
    }));
  } finally {
    await client.end();
  }
}

/**
 * How the ledger says the instants in [from, to) ended, counted by outcome (`ran`, `skipped-overlap`,
 * `missed-while-down`, …): why instants without a run went without one.
 */
export async function countOccurrenceOutcomes(url, { from, to }) {
  const client = new pg.Client({ connectionString: url, application_name: 'sched-bench-read' });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT outcome, count(*)::int AS n FROM occurrences
        WHERE scheduled_for >= $1 AND scheduled_for < $2 GROUP BY outcome ORDER BY n DESC`,
      [from, to],
    );
    return Object.fromEntries(rows.map((row) => [row.outcome, row.n]));
  } finally {
    await client.end();
  }
}
