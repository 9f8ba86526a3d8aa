import { decideFireOverlap, type RunInFlight } from '../../core/policy/fire-overlap.js';
import type { Run } from '../../core/run.js';
import { occurrenceToRow } from '../ledger-rows.js';
import type { Fire, FiredInstant, NewOccurrence, NewRun } from '../store.js';
import type { ScriptDialect } from './dialect.js';
import { recordEvents, type EventBatch, type NewEvent } from './event-scripts.js';
import { newRunToRun } from './row-mapping.js';
import { byId, insertRunRow, recordRunEvent, runEvent, runsInFlight } from './run-scripts.js';
import { step, type Script } from './script.js';
import type { RunsKey, Session } from './session.js';

// Transaction scripts of fires: they run inside a transaction the store opened, and a SchedError thrown
// here rolls it back.

/**
 * Inserts the fire's runs and ledger records and advances the job's `nextRunAt`; null when the
 * compare-and-set on `nextRunAt` failed. The advance takes the job's row lock, so the overlap rule then
 * sees every run of the job that any daemon started before. A taken run key throws the raw unique violation.
 */
export function* recordFire(
  dialect: ScriptDialect,
  session: Session,
  batch: EventBatch,
  fire: Fire,
): Script<FiredInstant | null> {
  if (fire.fence) yield* step(session.assertMapInForce(fire.fence));
  const advanced = yield* step(
    session.first(session.statements.advanceNextRun, {
      id: fire.jobId,
      expectedNextRunAt: fire.expectedNextRunAt,
      nextRunAt: fire.nextRunAt,
    }),
  );
  if (!advanced) return null;
  const due = overlapKey(fire);
  const inFlight = due ? yield* runsInFlight(session, due) : [];
  const { runs, occurrences, replaced } = underOverlapRule(stampedNow(fire), inFlight);
  const rows = occurrences.map((entry) => occurrenceToRow(entry, dialect.encoding));
  if (rows.length > 0) yield* step(session.insertOccurrences(rows));
  const inserted: Run[] = [];
  for (const run of runs) inserted.push(yield* insertRunRow(session, run, advanced.name));
  for (const run of inserted) yield* recordRunEvent(session, batch, 'run:fired', run, run.createdAt);
  return { runs: inserted, occurrences, replaced };
}

/**
 * recordFire for fires of different jobs due together, with one statement per step for all of them: the
 * fences, the advances (each job's row lock taken before its runs in flight are read, as a single fire
 * takes it), the runs in flight of the jobs with an overlap rule, the ledger records, the runs and their
 * events. A fire whose compare-and-set failed gets null and writes nothing; a taken run key throws.
 */
export function* recordFires(
  dialect: ScriptDialect,
  session: Session,
  batch: EventBatch,
  fires: readonly Fire[],
): Script<(FiredInstant | null)[]> {
  assertOneFirePerJob(fires);
  for (const fence of distinctFences(fires)) yield* step(session.assertMapInForce(fence));
  const advances = fires.map(({ jobId, expectedNextRunAt, nextRunAt }) => ({
    id: jobId,
    expectedNextRunAt,
    nextRunAt,
  }));
  const advanced = yield* step(session.advanceNextRuns(advances));
  const names = new Map(advanced.map((job) => [job.id, job.name]));
  const advancing = fires.filter((fire) => names.has(fire.jobId));
  const keys = advancing.map(overlapKey).filter((key) => key !== null);
  const inFlight = keys.length > 0 ? yield* step(session.runsInFlightOf(keys)) : [];
  const inFlightByKey = new RunsByKey(inFlight);
  const firing = advancing.map(stampedNow);
  const decided = new Map(
    firing.map((fire) => [fire.jobId, underOverlapRule(fire, inFlightByKey.of(overlapKey(fire)))]),
  );
  const decisions = [...decided.values()];
  const rows = decisions.flatMap((fired) =>
    fired.occurrences.map((entry) => occurrenceToRow(entry, dialect.encoding)),
  );
  if (rows.length > 0) yield* step(session.insertOccurrences(rows));
  const inserted = new Map(
    firing.map((fire) => {
      const fired = decided.get(fire.jobId)!;
      return [fire.jobId, fired.runs.map((run) => newRunToRun(run, names.get(fire.jobId)!))];
    }),
  );
  const runs = [...inserted.values()].flat();
  if (runs.length > 0) yield* step(session.insertRuns(runs));
  yield* recordFiredEvents(session, batch, runs);
  return fires.map((fire) => {
    const fired = decided.get(fire.jobId);
    return fired ? { ...fired, runs: inserted.get(fire.jobId)! } : null;
  });
}

/**
 * The fire with its runs stamped now that the job's lock is held and its runs in flight are read (see
 * Fire.writtenAt): the end of a run that read found over was stamped before the read.
 */
export function stampedNow(fire: Fire): Fire {
  if (fire.writtenAt === undefined) return fire;
  const now = fire.writtenAt();
  return { ...fire, runs: fire.runs.map((run) => ({ ...run, now: Math.max(run.now, now) })) };
}

/** The `run:fired` events of the runs, in one statement. */
function* recordFiredEvents(session: Session, batch: EventBatch, runs: readonly Run[]): Script<void> {
  const events = runs.map((run): NewEvent => runEvent('run:fired', run, run.createdAt));
  yield* recordEvents(session, batch, events);
}

/** The key whose runs in flight the fire's overlap rule looks at; null when it has no rule or no run. */
function overlapKey(fire: Fire): RunsKey | null {
  const due = fire.runs[0];
  if (fire.concurrency === undefined || due === undefined) return null;
  return { jobId: fire.jobId, host: due.host ?? '' };
}

/** Runs in flight grouped by job and host, once for a batch: each fire of it takes its own group. */
class RunsByKey {
  private readonly groups = new Map<string, RunInFlight[]>();

  constructor(runs: readonly (RunInFlight & RunsKey)[]) {
    for (const { id, node, state, trigger, jobId, host } of runs) {
      const key = keyOf({ jobId, host });
      const group = this.groups.get(key) ?? [];
      group.push({ id, node, state, trigger });
      this.groups.set(key, group);
    }
  }

  of(key: RunsKey | null): RunInFlight[] {
    if (key === null) return [];
    return [...(this.groups.get(keyOf(key)) ?? [])].sort(byId);
  }
}

const keyOf = ({ jobId, host }: RunsKey): string => `${jobId}\u0000${host}`;

/** The fire as the job's `--concurrency` leaves it, decided on its runs in flight now. */
function underOverlapRule(
  fire: Fire,
  inFlight: readonly RunInFlight[],
): Omit<FiredInstant, 'runs'> & { runs: NewRun[] } {
  const [due, ...rest] = fire.runs;
  if (fire.concurrency === undefined || due === undefined)
    return { runs: fire.runs, occurrences: fire.occurrences, replaced: [] };
  const ended = fire.endedHere?.() ?? [];
  const running = ended.length === 0 ? inFlight : inFlight.filter((run) => !ended.includes(run.id));
  const overlap = decideFireOverlap(fire.concurrency, due.state, running, due.node);
  if (overlap.action === 'run') {
    return {
      runs: [{ ...due, state: overlap.state }, ...rest],
      occurrences: fire.occurrences,
      replaced: overlap.replaced,
    };
  }
  // The instant gets no run: its `ran` record (a caught-up instant has one) gives way to the skip.
  const others = fire.occurrences.filter(
    (entry) => !(entry.scheduledFor === due.scheduledFor && entry.outcome === 'ran'),
  );
  const skipped: NewOccurrence = {
    jobId: fire.jobId,
    scheduledFor: due.scheduledFor,
    wall: null,
    outcome: 'skipped-overlap',
    reason: overlap.reason,
    node: due.node,
    decidedAt: due.now,
  };
  return { runs: rest, occurrences: [...others, skipped], replaced: [] };
}

function assertOneFirePerJob(fires: readonly Fire[]): void {
  const seen = new Set<string>();
  for (const { jobId } of fires) {
    if (seen.has(jobId)) throw new Error(`a batch of fires names job ${jobId} twice`);
    seen.add(jobId);
  }
}

function distinctFences(fires: readonly Fire[]): { term: number; publishedAt: number }[] {
  const fences = new Map<string, { term: number; publishedAt: number }>();
  for (const { fence } of fires) if (fence) fences.set(`${fence.term}:${fence.publishedAt}`, fence);
  return [...fences.values()];
}
