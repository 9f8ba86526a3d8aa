import { formatDuration } from '../duration.js';
import type { Job } from '../job.js';
import type { OccurrenceOutcome } from '../ledger/entry.js';
import { passedOccurrenceRecord } from '../ledger/reasons.js';
import { nextOccurrence, occurrencesBetween, type Occurrence } from '../schedule/occurrences.js';
import { formatMisfire, missedWhile, planMisfire, type MisfireCause } from './misfire.js';
import { plannedStart } from './spread.js';

/** A start later than this after its planned time counts as missed, and the job's misfire policy decides. */
export const MISFIRE_THRESHOLD_MS = 2_000;
/** At most this many missed instants of one job are looked at (and recorded) when it can fire again. */
export const MAX_MISSED_LISTED = 10_000;

/** An instant the ledger records without a run, and why. */
export interface MissedRecord {
  at: number;
  outcome: OccurrenceOutcome;
  /** A clause that completes "did not run because …". */
  reason: string;
  /** The wall time that never existed, for `dst-skipped`; null otherwise. */
  wall: string | null;
}

/** What firing a job that missed instants means at `now`. */
export interface MissedInstantsPlan {
  /** The instants its misfire policy runs now, oldest first, each with the ledger's reason it ran late. */
  run: Array<{ at: number; ledgerReason: string }>;
  /** The instants it drops, and those a clock change passed over. */
  records: MissedRecord[];
  /** Its next instant after those, or null when it never fires again. */
  nextRunAt: number | null;
}

/**
 * The instants from `first` (missed, or due now) to `now` that the job's misfire policy runs, and its next
 * instant; the instants it drops, and those a clock change passed over, are for the ledger. An instant
 * nominally due whose spread or jitter puts its start after `now` is not missed: it is the next.
 */
export function planMissedInstants(
  job: Job,
  first: number,
  now: number,
  cause: MisfireCause,
  limit = MAX_MISSED_LISTED,
): MissedInstantsPlan {
  const { dst } = job.policy;
  const records: MissedRecord[] = [];
  const listed = occurrencesBetween(job.schedule, first - 1, now, job.timezone, dst, limit);
  const missed: number[] = [];
  let nextRunAt: number | null = null;
  for (const item of listed.items) {
    if (!item.fires) pushPassed(job, item, records);
    else if (plannedStart(job, item.at) <= now) missed.push(item.at);
    else {
      nextRunAt = item.at;
      break;
    }
  }
  if (nextRunAt === null) {
    const from = listed.truncated ? now : Math.max(first, missed.at(-1) ?? first);
    const { fire: next, passed } = nextOccurrence(job.schedule, Math.max(from, now), job.timezone, dst);
    for (const occurrence of passed) pushPassed(job, occurrence, records);
    nextRunAt = next?.at ?? null;
  }
  if (missed.length === 0 && first <= now) missed.push(first);
  const plan = planMisfire(missed, now, nextRunAt, job.policy.misfire, cause);
  for (const dropped of plan.dropped)
    records.push({ at: dropped.at, outcome: dropped.outcome, reason: dropped.reason, wall: null });
  const while_ = missedWhile(cause);
  const flag = `--misfire ${formatMisfire(job.policy.misfire.policy)}`;
  const run = plan.run.map((at) => {
    const lateBy = formatDuration(Math.max(0, now - at));
    return { at, ledgerReason: `it fell due ${while_} and was caught up ${lateBy} late (${flag})` };
  });
  return { run, records, nextRunAt };
}

/** The ledger's record of an occurrence the DST policy passes over, when it is one. */
export function passedRecord(job: Job, occurrence: Occurrence): MissedRecord | null {
  const passed = passedOccurrenceRecord(occurrence, job.policy.dst, job.timezone);
  if (passed === null) return null;
  const wall = passed.outcome === 'dst-skipped' ? occurrence.wall : null;
  return { at: occurrence.at, outcome: passed.outcome, reason: passed.reason, wall };
}

function pushPassed(job: Job, occurrence: Occurrence, records: MissedRecord[]): void {
  const record = passedRecord(job, occurrence);
  if (record !== null) records.push(record);
}
