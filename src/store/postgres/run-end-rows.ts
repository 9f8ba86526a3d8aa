import type pg from 'pg';
import type { RunRecord } from '../sql/records.js';
import type { FinishingRun } from '../sql/session.js';

// The ends of runs settled together, in one statement: every outcome column goes as one array parameter
// and unnest() makes the rows, as the fires' rows do (fire-rows.ts). The outcomes are compared and set as
// the finishRun statement does one: only a run still unfinished takes its outcome. Output tails go as
// bytea (they may hold NUL, which text refuses).

type Client = pg.Pool | pg.PoolClient;

// The unfinished predicate is literal, as statePredicates writes it.
const FINISH_RUNS = {
  name: 'sched_finish_runs',
  text: `UPDATE runs SET state = ended.state, finished_at = ended.finished_at, exit_code = ended.exit_code,
      http_status = ended.http_status, signal = ended.signal, error = ended.error,
      stdout_tail = ended.stdout_tail, stderr_tail = ended.stderr_tail, stdout_bytes = ended.stdout_bytes,
      stderr_bytes = ended.stderr_bytes, response_headers = ended.response_headers,
      started_at = coalesce(ended.started_at, runs.started_at)
    FROM unnest($1::text[], $2::text[], $3::bigint[], $4::integer[], $5::integer[], $6::text[], $7::text[],
        $8::bytea[], $9::bytea[], $10::bigint[], $11::bigint[], $12::text[], $13::bigint[])
      AS ended(id, state, finished_at, exit_code, http_status, signal, error, stdout_tail, stderr_tail,
        stdout_bytes, stderr_bytes, response_headers, started_at),
      jobs
    WHERE runs.id = ended.id COLLATE "C" AND jobs.id = runs.job_id AND runs.state IN ('scheduled', 'running')
    RETURNING runs.id, runs.job_id AS "jobId", jobs.name AS "jobName", runs.scheduled_for AS "scheduledFor",
      runs.attempt, runs.trigger, runs.state, runs.node, runs.fence, runs.created_at AS "createdAt",
      runs.started_at AS "startedAt", runs.finished_at AS "finishedAt", runs.pid, runs.exit_code AS "exitCode",
      runs.http_status AS "httpStatus", runs.signal, runs.error, runs.retried_by AS "retriedBy",
      runs.due_at AS "dueAt", runs.host, runs.stdout_tail AS "stdoutTail", runs.stderr_tail AS "stderrTail",
      runs.stdout_bytes AS "stdoutBytes", runs.stderr_bytes AS "stderrBytes",
      runs.response_headers AS "responseHeaders"`,
};

/** A run row as pg gives it without drizzle's column types: int8 as text, bytea as a Buffer. */
type RawRunRow = Omit<
  RunRecord,
  | 'scheduledFor'
  | 'fence'
  | 'createdAt'
  | 'startedAt'
  | 'finishedAt'
  | 'dueAt'
  | 'stdoutBytes'
  | 'stderrBytes'
  | 'stdoutTail'
  | 'stderrTail'
> & {
  scheduledFor: string;
  fence: string;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  dueAt: string;
  stdoutBytes: string | null;
  stderrBytes: string | null;
  stdoutTail: Buffer;
  stderrTail: Buffer;
};

export async function finishRuns(client: Client, ends: readonly FinishingRun[]): Promise<RunRecord[]> {
  const values = [
    ends.map((end) => end.id),
    ends.map((end) => end.state),
    ends.map((end) => end.finishedAt),
    ends.map((end) => end.exitCode),
    ends.map((end) => end.httpStatus),
    ends.map((end) => end.signal),
    ends.map((end) => end.error),
    ends.map((end) => Buffer.from(end.stdoutTail, 'utf8')),
    ends.map((end) => Buffer.from(end.stderrTail, 'utf8')),
    ends.map((end) => end.stdoutBytes),
    ends.map((end) => end.stderrBytes),
    ends.map((end) => end.responseHeaders),
    ends.map((end) => end.startedAt),
  ];
  const { rows } = await client.query<RawRunRow>({ ...FINISH_RUNS, values });
  return rows.map(runRecordOf);
}

function runRecordOf(row: RawRunRow): RunRecord {
  return {
    ...row,
    scheduledFor: Number(row.scheduledFor),
    fence: Number(row.fence),
    createdAt: Number(row.createdAt),
    startedAt: orNull(row.startedAt),
    finishedAt: orNull(row.finishedAt),
    dueAt: Number(row.dueAt),
    stdoutBytes: orNull(row.stdoutBytes),
    stderrBytes: orNull(row.stderrBytes),
    stdoutTail: row.stdoutTail.toString('utf8'),
    stderrTail: row.stderrTail.toString('utf8'),
  };
}

const orNull = (value: string | null): number | null => (value === null ? null : Number(value));
