import type { NewDelivery } from '../../core/notify/delivery.js';
import type { RunInFlight } from '../../core/policy/fire-overlap.js';
import type { Run, RunOutcome } from '../../core/run.js';
import {
  jobNotFound,
  runAlreadyRetried,
  runInWrongState,
  runKeyTaken,
  runNotFound,
} from '../store-errors.js';
import type { AloneClaim, FinishedRun, IdempotencyClaim, NewRun, RunEnd } from '../store.js';
import { insertDeliveries } from './delivery-queries.js';
import { RETRYABLE_STATES } from '../../core/retry/decision.js';
import type { ScriptDialect } from './dialect.js';
import { recordEvent, recordEvents, type EventBatch, type NewEvent } from './event-scripts.js';
import { recordIdempotentResponse } from './job-scripts.js';
import { newRunToRun, outcomeToRow, rowToRun } from './row-mapping.js';
import { step, type Script } from './script.js';
import type { Session } from './session.js';

// Transaction scripts: they run inside a transaction the store opened, and a SchedError thrown here rolls
// it back.

/** The job's runs in flight on its host, oldest first (the overlap rule names the first). */
export function* runsInFlight(session: Session, key: { jobId: string; host: string }): Script<RunInFlight[]> {
  const runs = yield* step(session.all(session.statements.runsInFlight, key));
  return runs.sort(byId);
}

export const byId = (a: { id: string }, b: { id: string }): number =>
  a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/**
 * Starts a waiting run that must run alone: under its job's row lock, only while no other run of the job
 * (of its host) is running.
 */
export function* claimRunAlone(
  session: Session,
  runId: string,
  startedAt: () => number,
  node: string | null,
): Script<AloneClaim> {
  const run = yield* step(session.first(session.statements.lockJobOfRun, { id: runId }));
  if (!run || run.state !== 'scheduled') return 'gone';
  const inFlight = yield* runsInFlight(session, run);
  if (inFlight.some((other) => other.state === 'running')) return 'busy';
  const claimed = yield* step(
    session.first(session.statements.claimRun, { id: runId, startedAt: startedAt(), node }),
  );
  return claimed ? 'claimed' : 'gone';
}

/** A run that does not advance the schedule; a taken key is the caller's mistake (INVALID_STATE). */
export function* insertRun(
  dialect: ScriptDialect,
  session: Session,
  batch: EventBatch,
  run: NewRun,
  idempotency?: IdempotencyClaim,
): Script<Run> {
  const starting = run.alone && run.state === 'running' ? yield* startingAlone(session, run) : run;
  const jobName = yield* jobNameOf(session, run.jobId);
  const inserted = yield* insertRunRowOrExplain(dialect, session, starting, jobName);
  if (idempotency) yield* recordIdempotentResponse(session, idempotency, inserted);
  yield* announceIfWaiting(session, inserted);
  yield* recordRunEvent(session, batch, 'run:fired', inserted, inserted.createdAt);
  return inserted;
}

/** The run as it may start: `scheduled` while another run of its job runs, decided under the job's row lock. */
function* startingAlone(session: Session, run: NewRun): Script<NewRun> {
  const job = yield* step(session.first(session.statements.jobForUpdate, { id: run.jobId }));
  if (!job) throw jobNotFound(run.jobId);
  const inFlight = yield* step(
    session.all(session.statements.runsInFlight, { jobId: run.jobId, host: run.host ?? '' }),
  );
  return inFlight.some((other) => other.state === 'running') ? { ...run, state: 'scheduled' } : run;
}

/** A manual attempt of a run that ended (`sched retry`); like insertRun, a waiting one is announced. */
export function* retryRun(
  dialect: ScriptDialect,
  session: Session,
  batch: EventBatch,
  runId: string,
  retry: NewRun,
): Script<Run> {
  const inserted = yield* insertRetry(dialect, session, runId, retry);
  yield* announceIfWaiting(session, inserted);
  yield* recordRunEvent(session, batch, 'run:fired', inserted, inserted.createdAt);
  return inserted;
}

// A manual run made to wait may be another node's to start (its placement): that node hears of it now.
function* announceIfWaiting(session: Session, run: Run): Script<void> {
  if (run.state === 'scheduled') yield* step(session.announceWaitingRun(run.id));
}

/** Records how a run ended, the attempt that retries it if one is asked for, and the notifications it causes. */
export function* finishRun(
  dialect: ScriptDialect,
  session: Session,
  batch: EventBatch,
  runId: string,
  outcome: RunOutcome,
  retry?: NewRun,
  deliveries: readonly NewDelivery[] = [],
): Script<FinishedRun> {
  const row = yield* step(
    session.finishRun({ id: runId, ...outcomeToRow(outcome, dialect.encoding), startedAt: null }),
  );
  if (!row) return yield* explainUnchangedRun(session, runId, outcome.state);
  if (deliveries.length > 0) yield* insertDeliveries(dialect.tables, session, deliveries);
  const run = rowToRun(row);
  const ended = outcome.state === 'lost' ? 'run:lost' : 'run:finished';
  if (!retry) {
    yield* recordRunEvent(session, batch, ended, run, outcome.finishedAt);
    // The dead-letter: a failed attempt that nothing retries (as the daemon publishes it).
    if (RETRYABLE_STATES.has(outcome.state))
      yield* recordRunEvent(session, batch, 'run:dead', run, outcome.finishedAt);
    return { run, retry: null };
  }
  const retried = yield* insertRetry(dialect, session, runId, retry);
  // A retry placed on another node than the run's (its job's shard moved, a dead node's run) is told to it.
  if (retried.node !== run.node) yield* announceIfWaiting(session, retried);
  const finished = { ...run, retriedBy: retried.id };
  yield* recordRunEvent(session, batch, ended, finished, outcome.finishedAt);
  yield* recordRunEvent(session, batch, 'run:retry-scheduled', retried, outcome.finishedAt);
  return { run: finished, retry: retried };
}

type RunEventType = 'run:fired' | 'run:finished' | 'run:lost' | 'run:dead' | 'run:retry-scheduled';

/** The outbox event that tells of a run. */
export function runEvent(type: RunEventType, run: Run, at: number): NewEvent {
  return { type, at, jobId: run.jobId, runId: run.id, data: run };
}

export function* recordRunEvent(
  session: Session,
  batch: EventBatch,
  type: RunEventType,
  run: Run,
  at: number,
): Script<void> {
  yield* recordEvent(session, batch, runEvent(type, run, at));
}

/**
 * finishRun for many runs, with one statement per step for all of them: the compare-and-sets, the
 * notifications, the events. Retries, which only failures ask for, are inserted one by one. A run whose
 * compare-and-set failed gets null.
 */
export function* finishRuns(
  dialect: ScriptDialect,
  session: Session,
  batch: EventBatch,
  ends: readonly RunEnd[],
): Script<(FinishedRun | null)[]> {
  assertOneEndPerRun(ends);
  const rows = yield* step(
    session.finishRuns(
      ends.map(({ runId, outcome, startedAt }) => ({
        id: runId,
        ...outcomeToRow(outcome, dialect.encoding),
        startedAt: startedAt ?? null,
      })),
    ),
  );
  const finished = new Map(rows.map((row) => [row.id, rowToRun(row)]));
  const deliveries = ends.flatMap((end) => (finished.has(end.runId) ? (end.deliveries ?? []) : []));
  if (deliveries.length > 0) yield* insertDeliveries(dialect.tables, session, deliveries);
  const events: NewEvent[] = [];
  const results: (FinishedRun | null)[] = [];
  for (const { runId, outcome, retry } of ends) {
    const run = finished.get(runId);
    if (run === undefined) {
      results.push(null);
      continue;
    }
    const ended = outcome.state === 'lost' ? 'run:lost' : 'run:finished';
    if (!retry) {
      events.push(runEvent(ended, run, outcome.finishedAt));
      if (RETRYABLE_STATES.has(outcome.state)) events.push(runEvent('run:dead', run, outcome.finishedAt));
      results.push({ run, retry: null });
      continue;
    }
    const retried = yield* insertRetry(dialect, session, runId, retry);
    if (retried.node !== run.node) yield* announceIfWaiting(session, retried);
    const retriedRun = { ...run, retriedBy: retried.id };
    events.push(
      runEvent(ended, retriedRun, outcome.finishedAt),
      runEvent('run:retry-scheduled', retried, outcome.finishedAt),
    );
    results.push({ run: retriedRun, retry: retried });
  }
  yield* recordEvents(session, batch, events);
  return results;
}

function assertOneEndPerRun(ends: readonly RunEnd[]): void {
  const seen = new Set<string>();
  for (const { runId } of ends) {
    if (seen.has(runId)) throw new Error(`a batch of run ends names run ${runId} twice`);
    seen.add(runId);
  }
}

/** Ends a waiting run with `outcome`; null when it is no longer waiting. */
export function* cancelWaitingRun(
  dialect: ScriptDialect,
  session: Session,
  batch: EventBatch,
  runId: string,
  outcome: RunOutcome,
): Script<Run | null> {
  const values = { id: runId, ...outcomeToRow(outcome, dialect.encoding) };
  const cancelled = yield* step(session.first(session.statements.cancelWaitingRun, values));
  if (!cancelled) return null;
  const row = yield* step(session.first(session.statements.runById, { id: runId }));
  if (!row) return null;
  const run = rowToRun(row);
  yield* recordRunEvent(session, batch, 'run:finished', run, outcome.finishedAt);
  return run;
}

/** Marks a final run as retried by `retry` (only once: the mark is compare-and-set) and inserts it. */
export function* insertRetry(
  dialect: ScriptDialect,
  session: Session,
  runId: string,
  retry: NewRun,
): Script<Run> {
  const marked = yield* step(
    session.first(session.statements.markRetried, { id: runId, retriedBy: retry.id }),
  );
  if (!marked) return yield* explainUnchangedRun(session, runId, 'retried');
  return yield* insertRunRowOrExplain(dialect, session, retry, yield* jobNameOf(session, retry.jobId));
}

export function* insertRunRow(session: Session, run: NewRun, jobName: string): Script<Run> {
  const inserted = newRunToRun(run, jobName);
  yield* step(session.run(session.statements.insertRun, inserted));
  return inserted;
}

function* insertRunRowOrExplain(
  dialect: ScriptDialect,
  session: Session,
  run: NewRun,
  jobName: string,
): Script<Run> {
  try {
    return yield* insertRunRow(session, run, jobName);
  } catch (error) {
    if (dialect.isUniqueViolation(error, 'runKey'))
      throw runKeyTaken(run.jobId, run.scheduledFor, run.attempt);
    throw error;
  }
}

function* jobNameOf(session: Session, jobId: string): Script<string> {
  const job = yield* step(session.first(session.statements.jobNameById, { id: jobId }));
  if (!job) throw jobNotFound(jobId);
  return job.name;
}

/** Why a run's compare-and-set changed nothing: it is missing, already retried, or in another state. */
function* explainUnchangedRun(session: Session, runId: string, wanted: string): Script<never> {
  const current = yield* step(session.first(session.statements.runStateById, { id: runId }));
  if (!current) throw runNotFound(runId);
  if (wanted === 'retried' && current.retriedBy) throw runAlreadyRetried(runId, current.retriedBy);
  throw runInWrongState(runId, current.state, wanted);
}
