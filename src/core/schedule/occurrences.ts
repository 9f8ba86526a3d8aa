import type { Schedule } from '../job.js';
import { compileCron, type CompiledCron } from './cron.js';
import { assertTimezone, findOffsetChange, offsetAt, type WallTime } from './timezone.js';

const DAY_MS = 86_400_000;
// Each offset change crossed is progress of about half a year, so this only stops a search for a date that never
// comes (the same bound as next.ts).
const MAX_OFFSET_CHANGES = 1_000;
// Under gap=skip a job whose every wall time falls in a spring-forward gap (02:30 on the second Sunday of March in
// New York) never fires; a century of skipped jumps in a row is proof enough, and far cheaper than the walk's bound.
const MAX_SKIPPED_IN_A_ROW = 100;

/**
 * What a fixed-time cron job (explicit hours) does where the clocks change. `gap`: a wall time the clocks skip
 * runs once at the jump (`shift`) or not at all (`skip`). `repeat`: a wall time the clocks show twice runs at its
 * first occurrence, its last, or both.
 */
export interface DstPolicy {
  gap: 'shift' | 'skip';
  repeat: 'first' | 'last' | 'both';
}

/** Vixie cron's rule, and what `nextFireTime` implements. */
export const DEFAULT_DST_POLICY: Readonly<DstPolicy> = Object.freeze({ gap: 'shift', repeat: 'first' });

/** How a clock change touched an occurrence; null when it did not. */
export type OccurrenceNote =
  | null
  /** The wall time `from` never existed; the occurrence runs at the jump instead (gap=shift). */
  | { kind: 'shifted'; from: string }
  /** The wall time never existed and the job does not run for it (gap=skip); `wall` is that wall time. */
  | { kind: 'skipped' }
  /** The wall time occurs twice; this is its first or second occurrence. */
  | { kind: 'repeated'; occurrence: 'first' | 'second' };

/** One instant a schedule was due. */
export interface Occurrence {
  at: number;
  /** The local wall time, ISO 8601 without offset: `2026-03-08T03:00:00` (`.SSS` only when not zero). */
  wall: string;
  note: OccurrenceNote;
}

/** An occurrence in a listing, with whether the job runs for it under the DST policy. */
export interface ListedOccurrence extends Occurrence {
  fires: boolean;
}

/**
 * The first occurrence strictly after `after` that fires, and the occurrences before it that the DST policy
 * passes over (`skipped` by gap=skip, a `repeated` occurrence that the repeat setting does not run). Passed
 * occurrences are what the ledger records as `dst-skipped` and `deduplicated`.
 *
 * Wildcard-hour cron jobs (`*`, `*\/n` in the hour field) fire at every real instant whose wall time matches and
 * get no notes; `at` and `every` schedules get no notes either. Null when nothing fires again (or, under gap=skip,
 * when 100 skipped jumps pass in a row with no fire). With DEFAULT_DST_POLICY, `fire.at` equals `nextFireTime`.
 */
export function nextOccurrence(
  schedule: Schedule,
  after: number,
  timezone: string,
  dst: DstPolicy = DEFAULT_DST_POLICY,
): { fire: Occurrence | null; passed: Occurrence[] } {
  const passed: Occurrence[] = [];
  let skipped = 0;
  for (const item of occurrencesAfter(schedule, after, timezone, dst)) {
    const { fires, ...occurrence } = item;
    if (fires) return { fire: occurrence, passed };
    passed.push(occurrence);
    if (occurrence.note?.kind === 'skipped' && ++skipped >= MAX_SKIPPED_IN_A_ROW) break;
  }
  return { fire: null, passed };
}

/**
 * The instant `nextOccurrence` fires at, or null, without the wall time and notes it also works out: `at` and
 * `every` schedules need no zone arithmetic for it (a create and a get by name ask only for the instant).
 */
export function nextFireAt(
  schedule: Schedule,
  after: number,
  timezone: string,
  dst: DstPolicy = DEFAULT_DST_POLICY,
): number | null {
  switch (schedule.kind) {
    case 'at':
      assertTimezone(timezone);
      return schedule.at > after ? schedule.at : null;
    case 'every':
      assertTimezone(timezone);
      return everyInstant(schedule.anchorMs, schedule.intervalMs, firstEveryStep(schedule, after));
    default:
      return nextOccurrence(schedule, after, timezone, dst).fire?.at ?? null;
  }
}

/**
 * Every occurrence in (from, to], fires and passed-over ones alike, in order; at most `limit` items, and
 * `truncated` when more lie in the range. Pass `from - 1` for a range that includes `from`.
 */
export function occurrencesBetween(
  schedule: Schedule,
  from: number,
  to: number,
  timezone: string,
  dst: DstPolicy,
  limit: number,
): { items: ListedOccurrence[]; truncated: boolean } {
  const items: ListedOccurrence[] = [];
  const cap = Math.max(0, Math.floor(limit));
  if (to <= from) return { items, truncated: false };
  for (const item of occurrencesAfter(schedule, from, timezone, dst)) {
    if (item.at > to) break;
    if (items.length === cap) return { items, truncated: true };
    items.push(item);
  }
  return { items, truncated: false };
}

/** Wall time as ISO 8601 without offset. */
export function formatWall(wall: WallTime): string {
  const iso = new Date(wall).toISOString();
  return iso.endsWith('.000Z') ? iso.slice(0, 19) : iso.slice(0, 23);
}

function occurrencesAfter(
  schedule: Schedule,
  after: number,
  timezone: string,
  dst: DstPolicy,
): Iterable<ListedOccurrence> {
  assertTimezone(timezone);
  switch (schedule.kind) {
    case 'at':
      return schedule.at > after ? [plain(schedule.at, timezone)] : [];
    case 'every':
      return everyOccurrences(schedule, after, timezone);
    case 'cron':
      return cronOccurrences(compileCron(schedule.expression), after, timezone, dst);
    default:
      // A job with dependencies only (no time schedule) never comes due by the clock.
      return [];
  }
}

function plain(at: number, timezone: string): ListedOccurrence {
  return { at, wall: formatWall(at + offsetAt(timezone, at)), note: null, fires: true };
}

function* everyOccurrences(
  schedule: Extract<Schedule, { kind: 'every' }>,
  after: number,
  timezone: string,
): Generator<ListedOccurrence> {
  for (let k = firstEveryStep(schedule, after); ; k++)
    yield plain(everyInstant(schedule.anchorMs, schedule.intervalMs, k), timezone);
}

/** The k of the first `anchor + k * interval` after `after`; k >= 1, as next.ts: the anchor itself never fires. */
function firstEveryStep({ anchorMs, intervalMs }: { anchorMs: number; intervalMs: number }, after: number) {
  return Math.max(1, Math.floor((after - anchorMs) / intervalMs) + 1);
}

function everyInstant(anchor: number, interval: number, k: number): number {
  return anchor + k * interval;
}

/**
 * Walks real time one stretch of constant UTC offset at a time, as next.ts does, yielding every real instant whose
 * wall time matches. For fixed-time jobs it also yields one occurrence per forward jump that skipped matching wall
 * times (at the jump), and marks the two occurrences of a repeated wall time.
 */
function* cronOccurrences(
  cron: CompiledCron,
  after: number,
  timezone: string,
  dst: DstPolicy,
): Generator<ListedOccurrence> {
  const fixedTime = !cron.hourIsWildcard;
  // A shifted occurrence runs at the jump; a real wall time matching at that same instant is the same run.
  let shiftedTo: number | null = null;
  // The walk below reads the offset after its cursor, so a jump exactly at after + 1 would go unseen.
  if (fixedTime && offsetAt(timezone, after) < offsetAt(timezone, after + 1)) {
    const gap = gapOccurrence(cron, timezone, dst, after + 1, offsetAt(timezone, after));
    if (gap !== null) {
      if (gap.fires) shiftedTo = gap.at;
      yield gap;
    }
  }
  let cursor = after;
  for (let changes = 0; changes < MAX_OFFSET_CHANGES;) {
    const offset = offsetAt(timezone, cursor + 1);
    const wall = cron.nextWallTimeAfter(cursor + offset);
    if (wall === null) return;
    const candidate = wall - offset;
    const change = findOffsetChange(timezone, cursor + 1, candidate);
    if (change === null) {
      cursor = candidate;
      if (candidate !== shiftedTo)
        yield fixedTime ? repeatAware(candidate, wall, timezone, dst) : real(candidate, wall);
      continue;
    }
    changes++;
    if (fixedTime && offsetAt(timezone, change) > offset) {
      const gap = gapOccurrence(cron, timezone, dst, change, offset);
      if (gap !== null) {
        if (gap.fires) shiftedTo = gap.at;
        yield gap;
      }
    }
    cursor = change - 1;
  }
}

function real(at: number, wall: WallTime): ListedOccurrence {
  return { at, wall: formatWall(wall), note: null, fires: true };
}

/** The occurrence for matching wall times skipped by the jump at `change`, or null when none matched. */
function gapOccurrence(
  cron: CompiledCron,
  timezone: string,
  dst: DstPolicy,
  change: number,
  offsetBefore: number,
): ListedOccurrence | null {
  const firstSkipped = cron.nextWallTimeAfter(change + offsetBefore - 1);
  if (firstSkipped === null || firstSkipped >= change + offsetAt(timezone, change)) return null;
  if (dst.gap === 'skip') {
    return { at: change, wall: formatWall(firstSkipped), note: { kind: 'skipped' }, fires: false };
  }
  return {
    at: change,
    wall: formatWall(change + offsetAt(timezone, change)),
    note: { kind: 'shifted', from: formatWall(firstSkipped) },
    fires: true,
  };
}

function repeatAware(at: number, wall: WallTime, timezone: string, dst: DstPolicy): ListedOccurrence {
  const occurrence = repeatedOccurrence(at, wall, timezone);
  if (occurrence === null) return real(at, wall);
  const fires = occurrence === 'first' ? dst.repeat !== 'last' : dst.repeat !== 'first';
  return { at, wall: formatWall(wall), note: { kind: 'repeated', occurrence }, fires };
}

/** Whether the clocks show `wall` at another instant too, and if so whether `at` is the first or the second. */
function repeatedOccurrence(at: number, wall: WallTime, timezone: string): 'first' | 'second' | null {
  // No zone changes its offset twice within a day, so equal offsets a day either side mean no repeat nearby.
  if (offsetAt(timezone, at - DAY_MS) === offsetAt(timezone, at + DAY_MS)) return null;
  for (const probe of [wall - DAY_MS, wall + DAY_MS]) {
    const other = wall - offsetAt(timezone, probe);
    if (other !== at && other + offsetAt(timezone, other) === wall) return other > at ? 'first' : 'second';
  }
  return null;
}
