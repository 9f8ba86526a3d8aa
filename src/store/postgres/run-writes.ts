import type { Run, RunOutcome } from '../../core/run.js';
import {
  jobNotFound,
  runAlreadyRetried,
  runInWrongState,
  runKeyTaken,
  runNotFound,
} from '../store-errors.js';
import type { NewRun } from '../store.js';
import { isUniqueViolation } from './pg-errors.js';
import { RUN_KEY_INDEX } from './predicates.js';
import { newRunToRow, rowToRun, withoutNul } from './row-mapping.js';
import type { Session } from './session.js';

// These run inside a transaction the store opened; a SchedError thrown here rolls it back.

/** Inserts the run; a taken (job, instant, attempt) key throws the raw unique violation. */
export async function insertRunRow({ statements }: Session, run: NewRun, jobName: string): Promise<Run> {
  const row = newRunToRow(run);
  await statements.insertRun.execute(row);
  return { ...row, jobName, responseHeaders: null };
}

/** As `insertRunRow`, but a taken key is the caller's mistake: INVALID_STATE. */
export async function insertRunRowOrExplain(session: Session, run: NewRun, jobName: string): Promise<Run> {
  try {
    return await insertRunRow(session, run, jobName);
  } catch (error) {
    if (isUniqueViolation(error, RUN_KEY_INDEX)) throw runKeyTaken(run.jobId, run.scheduledFor, run.attempt);
    throw error;
  }
}

export async function jobNameOf({ statements }: Session, jobId: string): Promise<string> {
  const [job] = await statements.jobNameById.execute({ id: jobId });
  if (!job) throw jobNotFound(jobId);
  return job.name;
}

/**
 * Records the outcome if the run is still unfinished (compare-and-set: a second finisher blocks on the
 * row, then finds it final) and returns the finished run with its job's name, in one statement.
 */
export async function finishRunRow(session: Session, runId: string, outcome: RunOutcome): Promise<Run> {
  const [row] = await session.statements.finishRun.execute({
    id: runId,
    ...outcome,
    httpStatus: outcome.httpStatus ?? null,
    stdoutBytes: outcome.stdoutBytes ?? null,
    stderrBytes: outcome.stderrBytes ?? null,
    error: outcome.error === null ? null : withoutNul(outcome.error),
    responseHeaders: outcome.responseHeaders ? JSON.stringify(outcome.responseHeaders) : null,
  });
  if (!row) {
    const current = await runStateOf(session, runId);
    if (!current) throw runNotFound(runId);
    throw runInWrongState(runId, current.state, outcome.state);
  }
  return rowToRun(row);
}

/** Marks a final run as retried by `retry` (only once: the mark is compare-and-set) and inserts it. */
export async function insertRetry(session: Session, runId: string, retry: NewRun): Promise<Run> {
  const marked = await session.statements.markRetried.execute({ id: runId, retriedBy: retry.id });
  if (marked.length === 0) {
    const current = await runStateOf(session, runId);
    if (!current) throw runNotFound(runId);
    if (current.retriedBy) throw runAlreadyRetried(runId, current.retriedBy);
    throw runInWrongState(runId, current.state, 'retried');
  }
  return insertRunRowOrExplain(session, retry, await jobNameOf(session, retry.jobId));
}

async function runStateOf({ statements }: Session, runId: string) {
  const [current] = await statements.runStateById.execute({ id: runId });
  return current;
}
