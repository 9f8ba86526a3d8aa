import type pg from 'pg';
import type { RunInFlight } from '../../core/policy/fire-overlap.js';
import type { Run } from '../../core/run.js';
import type { NextRunAdvance, RunPid, RunsKey } from '../sql/session.js';
import { EVENT_COLUMNS, NEW_RUN_COLUMNS, type EventRow } from '../sql/tables.js';

// The rows of fires due together, each kind in one statement: every column goes as one array parameter
// and unnest() makes the rows, so a batch of any size is one named statement, parsed and planned once per
// connection, and one round trip. Ids are `text COLLATE "C"` columns; the arrays' values are compared in
// that collation, so the indexes on them serve.

type Client = pg.Pool | pg.PoolClient;

const ADVANCE_NEXT_RUNS = {
  name: 'sched_advance_next_runs',
  text: `UPDATE jobs SET next_run_at = fire.next_run_at
    FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS fire(id, expected, next_run_at)
    WHERE jobs.id = fire.id COLLATE "C" AND jobs.next_run_at = fire.expected
      AND jobs.state = 'active' AND jobs.deleted_at IS NULL AND jobs.next_run_at IS NOT NULL
    RETURNING jobs.id, jobs.name`,
};

// The partial index on runs in flight is used only when the query repeats its WHERE literally. Each key is
// looked up on its own (a LATERAL subquery that OFFSET 0 keeps from being merged into a join): a plan
// cached while the runs table was small (a fresh database) otherwise read all of runs_unfinished_idx for
// every batch, with the entries of every run that ended since the last vacuum, and kept doing so.
const RUNS_IN_FLIGHT_OF = {
  name: 'sched_runs_in_flight_of',
  text: `SELECT runs.job_id AS "jobId", runs.host, runs.id, runs.node, runs.state, runs.trigger
    FROM unnest($1::text[], $2::text[]) AS key(job_id, host)
    CROSS JOIN LATERAL (
      SELECT * FROM runs
      WHERE runs.job_id = key.job_id COLLATE "C" AND runs.host = key.host
        AND runs.state IN ('scheduled', 'running')
      OFFSET 0
    ) AS runs`,
};

// The columns in NEW_RUN_COLUMNS' order, which the parameters follow.
const INSERT_RUNS = {
  name: 'sched_insert_runs',
  text: `INSERT INTO runs (id, job_id, scheduled_for, attempt, trigger, state, node, fence, created_at, started_at,
      due_at, host)
    SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::integer[], $5::text[], $6::text[], $7::text[],
      $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[], $12::text[])`,
};

// The columns in EVENT_COLUMNS' order. Ordered by position, so the serial ids are drawn in the rows'
// order and, sorted, fall to them in turn.
const INSERT_EVENTS = {
  name: 'sched_insert_events',
  text: `INSERT INTO events (type, node, at, job_id, run_id, data)
    SELECT type, node, at, job_id, run_id, data
    FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[])
      WITH ORDINALITY AS event(type, node, at, job_id, run_id, data, position)
    ORDER BY position
    RETURNING id`,
};

// INSERT_EVENTS, after the pids of the runs that have one.
const START_RUNS = {
  name: 'sched_start_runs',
  text: `WITH started AS (
      UPDATE runs SET pid = started.pid, started_at = started.started_at
      FROM unnest($7::text[], $8::integer[], $9::bigint[]) AS started(id, pid, started_at)
      WHERE runs.id = started.id COLLATE "C"
    )
    INSERT INTO events (type, node, at, job_id, run_id, data)
    SELECT type, node, at, job_id, run_id, data
    FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[])
      WITH ORDINALITY AS event(type, node, at, job_id, run_id, data, position)
    ORDER BY position
    RETURNING id`,
};

export async function advanceNextRuns(
  client: Client,
  advances: readonly NextRunAdvance[],
): Promise<{ id: string; name: string }[]> {
  const values = [
    advances.map((advance) => advance.id),
    advances.map((advance) => advance.expectedNextRunAt),
    advances.map((advance) => advance.nextRunAt),
  ];
  return (await client.query<{ id: string; name: string }>({ ...ADVANCE_NEXT_RUNS, values })).rows;
}

export async function runsInFlightOf(
  client: Client,
  keys: readonly RunsKey[],
): Promise<(RunInFlight & RunsKey)[]> {
  const values = [keys.map((key) => key.jobId), keys.map((key) => key.host)];
  return (await client.query<RunInFlight & RunsKey>({ ...RUNS_IN_FLIGHT_OF, values })).rows;
}

export async function insertRuns(client: Client, runs: readonly Run[]): Promise<void> {
  const rows = runs.map((run) => ({ ...run, host: run.host ?? '' }));
  const values = columnArrays(rows, NEW_RUN_COLUMNS);
  await client.query({ ...INSERT_RUNS, values });
}

export async function insertEvents(client: Client, rows: readonly EventRow[]): Promise<number[]> {
  const values = columnArrays(rows, EVENT_COLUMNS);
  const result = await client.query<{ id: string }>({ ...INSERT_EVENTS, values });
  return result.rows.map((row) => Number(row.id)).sort((a, b) => a - b);
}

/** The pids of runs that started (those that have one) and their `run:started` events, in one statement. */
export async function startRuns(
  client: Client,
  starts: readonly RunPid[],
  rows: readonly EventRow[],
): Promise<number[]> {
  const pids = starts.filter((start) => start.pid !== null);
  if (pids.length === 0) return insertEvents(client, rows);
  const values = [
    ...columnArrays(rows, EVENT_COLUMNS),
    pids.map((run) => run.runId),
    pids.map((run) => run.pid),
    pids.map((run) => run.startedAt),
  ];
  const result = await client.query<{ id: string }>({ ...START_RUNS, values });
  return result.rows.map((row) => Number(row.id)).sort((a, b) => a - b);
}

/** One array per column, in the statement's order: the parameters that unnest() makes rows of. */
function columnArrays<Row>(rows: readonly Row[], columns: readonly (keyof Row)[]): unknown[][] {
  return columns.map((column) => rows.map((row) => row[column]));
}
