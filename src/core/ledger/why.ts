import { DateTime } from 'luxon';
import { formatDuration } from '../duration.js';
import { permanentReason } from '../retry/failure-note.js';
import type { RunSummary } from '../run.js';
import { clock } from '../schedule/explain.js';
import { assertTimezone, offsetAt } from '../schedule/timezone.js';
import type { LedgerEntry, OccurrenceOutcome } from './entry.js';

const DAY_MS = 86_400_000;
/** How far from `--at` an instant may be and still be the one asked about. */
export const DEFAULT_WHY_TOLERANCE_MS = 60_000;

export interface WhyOptions {
  /** The runs of the entries, for start times, attempts and durations; without them the sentence names run ids. */
  runs?: readonly RunSummary[];
  toleranceMs?: number;
}

const OUTCOME_WORDS: Readonly<Record<OccurrenceOutcome, string>> = {
  ran: 'ran',
  'skipped-overlap': 'skipped for overlap',
  'missed-while-down': 'missed while down',
  'outside-catchup-window': 'outside the catch-up window',
  'dst-skipped': 'skipped by a clock change',
  paused: 'paused',
  'store-unreachable': 'missed while the store was unreachable',
  deduplicated: 'repeated wall time, not run',
  overdue: 'overdue',
};

const DEFAULT_REASONS: Readonly<Record<Exclude<OccurrenceOutcome, 'ran'>, string>> = {
  'skipped-overlap': 'an earlier run was still running',
  'missed-while-down': 'it fell due while the scheduler was not running',
  'outside-catchup-window': 'it fell due while the scheduler was not running, outside the catch-up window',
  'dst-skipped': 'that wall time does not exist on that day',
  paused: 'the job was paused',
  'store-unreachable':
    'it fell due while the store could not be reached, and a job that runs on one node does not fire without it',
  deduplicated: 'its wall time came round a second time after the clocks went back',
  overdue: 'no run had succeeded for as long as --expect-success-every allows',
};

/**
 * `sched why JOB [--at T]` in one sentence: what happened to the recorded instant nearest `at` (within
 * `toleranceMs`, default a minute), or to the latest one when `at` is null. When nothing was due near `at`, says
 * so and names the nearest instants before and after it. Times are shown in `timezone`.
 */
export function explainWhy(
  entries: readonly LedgerEntry[],
  at: number | null,
  timezone: string,
  now: number,
  options: WhyOptions = {},
): string {
  assertTimezone(timezone);
  // At one instant (a skipped wall time and the real one at the jump), the earlier wall time reads first;
  // every-host nodes' entries of it by node.
  const sorted = [...entries].sort(
    (a, b) =>
      a.scheduledFor - b.scheduledFor ||
      compareText(wallOf(a, timezone), wallOf(b, timezone)) ||
      compareText(a.host ?? '', b.host ?? ''),
  );
  const latest = sorted.at(-1);
  if (latest === undefined) {
    return at === null
      ? 'No instant of this job has been recorded yet, so there is nothing to explain.'
      : `Nothing was recorded for this job at ${instantText(at, timezone)}; no instant of it has been recorded yet.`;
  }
  let target = latest.scheduledFor;
  if (at !== null) {
    const nearest = sorted.reduce((best, entry) =>
      Math.abs(entry.scheduledFor - at) < Math.abs(best.scheduledFor - at) ? entry : best,
    );
    if (Math.abs(nearest.scheduledFor - at) > (options.toleranceMs ?? DEFAULT_WHY_TOLERANCE_MS)) {
      return nothingNear(sorted, at, timezone, now);
    }
    target = nearest.scheduledFor;
  }
  const chosen = sorted.filter((entry) => entry.scheduledFor === target);
  if (chosen.length > 1 && chosen.some((entry) => entry.host !== undefined)) {
    return perNode(chosen, timezone, now, options.runs ?? []);
  }
  const nodes = new Set(chosen.map((entry) => entry.node));
  const clauses = chosen.map(
    (entry) =>
      `${entry.jobName} was due at ${dueText(entry, timezone)} and ${body(entry, timezone, now, options.runs ?? [])}` +
      (nodes.size > 1 ? ` (decided by node ${entry.node})` : ''),
  );
  const decidedBy = nodes.size === 1 ? `; decided by node ${chosen[0]?.node ?? ''}` : '';
  return `${clauses.join('; ')}${decidedBy}.`;
}

/**
 * An every-host instant that nodes decided each for itself: the instant once, then what each node did
 * (`on node a it was skipped because …; on node b it was skipped because …`).
 */
function perNode(
  chosen: readonly LedgerEntry[],
  timezone: string,
  now: number,
  runs: readonly RunSummary[],
): string {
  const first = chosen[0]!;
  const clauses = chosen.map((entry) => {
    if (entry.host === undefined)
      return `it ${body(entry, timezone, now, runs)} (decided by node ${entry.node})`;
    // The node's entry names its node in its reason already, for the listings.
    const prefix = `on node ${entry.host}: `;
    const reason = entry.reason.startsWith(prefix) ? entry.reason.slice(prefix.length) : entry.reason;
    return `on node ${entry.host} it ${body({ ...entry, reason }, timezone, now, runs)}`;
  });
  return `${first.jobName} was due at ${dueText(first, timezone)}: ${clauses.join('; ')}.`;
}

function nothingNear(sorted: readonly LedgerEntry[], at: number, timezone: string, now: number): string {
  const before = sorted.filter((entry) => entry.scheduledFor < at).at(-1);
  const after = sorted.find((entry) => entry.scheduledFor > at);
  const neighbours = [before, after].filter((entry): entry is LedgerEntry => entry !== undefined);
  const name = neighbours[0]?.jobName ?? 'the job';
  const future = at > now ? ' (that is still in the future)' : '';
  const listed = neighbours.map((entry) => `${dueText(entry, timezone)} (${OUTCOME_WORDS[entry.outcome]})`);
  const nearest =
    listed.length === 1
      ? `the nearest recorded instant is ${listed[0]}`
      : `the nearest recorded instants are ${listed.join(' and ')}`;
  return `${name} was not due at ${instantText(at, timezone)}${future}; ${nearest}.`;
}

function body(entry: LedgerEntry, timezone: string, now: number, runs: readonly RunSummary[]): string {
  if (entry.outcome === 'ran') {
    const because = entry.reason === '' ? '' : ` because ${entry.reason}`;
    return `${ranText(entry, timezone, now, runs)}${because}`;
  }
  const reason = entry.reason === '' ? DEFAULT_REASONS[entry.outcome] : entry.reason;
  return entry.outcome === 'skipped-overlap' ? `was skipped because ${reason}` : `did not run: ${reason}`;
}

function ranText(entry: LedgerEntry, timezone: string, now: number, runs: readonly RunSummary[]): string {
  const own = runs.filter((run) => entry.runIds.includes(run.id)).sort((a, b) => a.attempt - b.attempt);
  const first = own[0];
  const last = own.at(-1);
  if (first === undefined || last === undefined) {
    if (entry.runIds.length === 0) return 'ran';
    const ids = entry.runIds.join(', ');
    const ended =
      entry.finalState !== null
        ? `which ended ${entry.finalState.replace('_', ' ')}`
        : entry.waiting === true
          ? 'which is waiting to start'
          : 'which is still running';
    return `ran as run${entry.runIds.length > 1 ? 's' : ''} ${ids}, ${ended}`;
  }
  const failedBefore = own.length - 1;
  const retried =
    failedBefore === 0
      ? ''
      : `; ${failedBefore} earlier attempt${failedBefore === 1 ? '' : 's'} did not succeed`;
  const attempts = `${attemptText(last, timezone, entry, now)}${retried}`;
  if (first.startedAt === null) return `is waiting to start (${attempts})`;
  const verb = last.state === 'running' || last.state === 'scheduled' ? 'started' : 'ran';
  return `${verb} at ${timeText(first.startedAt, entry.scheduledFor, timezone)} (${attempts})`;
}

function attemptText(run: RunSummary, timezone: string, entry: LedgerEntry, now: number): string {
  const attempt = `attempt ${run.attempt}`;
  const took =
    run.startedAt !== null && run.finishedAt !== null ? elapsed(run.finishedAt - run.startedAt) : null;
  const after = took === null ? '' : ` after ${took}`;
  switch (run.state) {
    case 'succeeded':
      return took === null ? `${attempt} succeeded` : `${attempt} succeeded in ${took}`;
    case 'failed':
      return `${attempt} failed${after}${permanentText(run.error)}`;
    case 'timed_out':
      return `${attempt} timed out${after}`;
    case 'cancelled':
      return `${attempt} was cancelled${after}`;
    case 'lost':
      return `${attempt} was lost${after}`;
    case 'running':
      return run.startedAt === null
        ? `${attempt} is running`
        : `${attempt} has been running for ${elapsed(Math.max(0, now - run.startedAt))}`;
    case 'scheduled':
      // Past its due time it waits for the job's running run or a free slot, not for the clock.
      return run.dueAt <= now
        ? `${attempt} was due at ${timeText(run.dueAt, entry.scheduledFor, timezone)} and waits for the job's running run to end or a free slot`
        : `${attempt} is due at ${timeText(run.dueAt, entry.scheduledFor, timezone)}`;
  }
}

/** `, a permanent failure (HTTP 404 is a client error…), so it was not retried`, or nothing. */
function permanentText(error: string | null): string {
  const reason = permanentReason(error);
  return reason === null ? '' : `, a permanent failure (${reason}), so it was not retried`;
}

/** `2.1s` under a minute (`450ms` under a second), `3m20s` beyond. */
function elapsed(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)}s`;
  return formatDuration(ms);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function wallOf(entry: LedgerEntry, timezone: string): string {
  if (entry.wall !== undefined && entry.wall !== null) return entry.wall;
  return DateTime.fromMillis(entry.scheduledFor, { zone: timezone }).toFormat("yyyy-MM-dd'T'HH:mm:ss.SSS");
}

/** The wall time an entry stood for: its recorded wall time, or `scheduledFor` in the zone. */
function dueText(entry: LedgerEntry, timezone: string): string {
  if (entry.wall !== undefined && entry.wall !== null) {
    return `${entry.wall.slice(0, 10)} ${clock(entry.wall)} ${timezone}`;
  }
  return instantText(entry.scheduledFor, timezone);
}

/** `2026-03-08 03:00 America/New_York`; a wall time the clocks show twice gets its abbreviation (`01:30 EST`). */
function instantText(instant: number, timezone: string): string {
  const local = DateTime.fromMillis(instant, { zone: timezone, locale: 'en-US' });
  const pattern =
    local.millisecond !== 0
      ? 'yyyy-MM-dd HH:mm:ss.SSS'
      : local.second !== 0
        ? 'yyyy-MM-dd HH:mm:ss'
        : 'yyyy-MM-dd HH:mm';
  const zone = isRepeatedWallTime(instant, timezone) ? ` ${local.offsetNameShort ?? ''}` : '';
  return `${local.toFormat(pattern)}${zone} ${timezone}`;
}

/** `03:00:00.004` on the day it was due, with the date otherwise. */
function timeText(instant: number, dueAt: number, timezone: string): string {
  const local = DateTime.fromMillis(instant, { zone: timezone, locale: 'en-US' });
  const due = DateTime.fromMillis(dueAt, { zone: timezone, locale: 'en-US' });
  return local.toFormat(local.hasSame(due, 'day') ? 'HH:mm:ss.SSS' : 'yyyy-MM-dd HH:mm:ss.SSS');
}

function isRepeatedWallTime(instant: number, timezone: string): boolean {
  const before = offsetAt(timezone, instant - DAY_MS);
  const after = offsetAt(timezone, instant + DAY_MS);
  if (before === after) return false;
  const wall = instant + offsetAt(timezone, instant);
  return [wall - before, wall - after].some(
    (other) => other !== instant && other + offsetAt(timezone, other) === wall,
  );
}
