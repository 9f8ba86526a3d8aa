import type { Schedule } from '../job.js';
import { compileCron, type CompiledCron } from './cron.js';
import { assertTimezone, findOffsetChange, offsetAt } from './timezone.js';

const DAY_MS = 86_400_000;
// Each pass of the cron walk either returns or crosses one offset change (about two a year), so this only
// stops a search for a date that never comes, such as 5th Mondays of a February far in the future.
const MAX_OFFSET_CHANGES = 1_000;

/** The first instant strictly after `after` at which the schedule fires, or null if it never fires again. */
export function nextFireTime(schedule: Schedule, after: number, timezone: string): number | null {
  return fireTimeFinder(schedule, timezone)(after);
}

/** Up to `count` consecutive fire instants strictly after `after`; fewer if the schedule runs out. */
export function nextFireTimes(schedule: Schedule, after: number, timezone: string, count: number): number[] {
  const next = fireTimeFinder(schedule, timezone);
  const times: number[] = [];
  for (let cursor = next(after); cursor !== null && times.length < count; cursor = next(cursor)) {
    times.push(cursor);
  }
  return times;
}

function fireTimeFinder(schedule: Schedule, timezone: string): (after: number) => number | null {
  switch (schedule.kind) {
    case 'at':
      return (after) => (schedule.at > after ? schedule.at : null);
    case 'every':
      return (after) => {
        // anchor + k * interval for the smallest k >= 1 that lies after `after`; the anchor itself never fires.
        const intervalsPassed = Math.floor((after - schedule.anchorMs) / schedule.intervalMs);
        return schedule.anchorMs + Math.max(1, intervalsPassed + 1) * schedule.intervalMs;
      };
    case 'cron': {
      assertTimezone(timezone);
      const cron = compileCron(schedule.expression);
      return (after) => nextCronFire(cron, after, timezone);
    }
    case 'none':
      return () => null;
  }
}

/**
 * Walks real time one stretch of constant UTC offset at a time. Within a stretch, wall time is instant plus
 * offset, so the next matching wall time gives the next candidate directly. Where the offset changes:
 * - wildcard-hour jobs (`*`, `*\/n`) fire at every real instant whose wall time matches, so nothing fires
 *   for wall times the clocks skip and a repeated wall time fires at both of its instants;
 * - fixed-time jobs (explicit hours, Vixie cron's rule) fire once per wall time: a skipped wall time fires at
 *   the instant of the jump, a repeated one only at its first occurrence.
 */
function nextCronFire(cron: CompiledCron, after: number, timezone: string): number | null {
  // The walk reads the offset after its cursor, so a jump exactly at after + 1 would go unseen.
  if (!cron.hourIsWildcard && skipsMatchingWallTimes(cron, timezone, after + 1)) return after + 1;
  let cursor = after;
  let wallFloor = cron.hourIsWildcard ? -Infinity : firstOccurrencesBehind(timezone, after);
  for (let pass = 0; pass < MAX_OFFSET_CHANGES; pass++) {
    const offset = offsetAt(timezone, cursor + 1);
    const wall = cron.nextWallTimeAfter(Math.max(cursor + offset, wallFloor));
    if (wall === null) return null;
    const candidate = wall - offset;
    const change = findOffsetChange(timezone, cursor + 1, candidate);
    if (change === null) return candidate;
    if (!cron.hourIsWildcard) {
      if (skipsMatchingWallTimes(cron, timezone, change)) return change;
      // Wall times before the change already happened; after a set-back they come round again and must not fire.
      wallFloor = Math.max(wallFloor, change + offset - 1);
    }
    cursor = change - 1;
  }
  return null;
}

/** Whether the clocks jump forward at `instant` over a wall time the expression matches. */
function skipsMatchingWallTimes(cron: CompiledCron, timezone: string, instant: number): boolean {
  const offsetBefore = offsetAt(timezone, instant - 1);
  const offsetAfter = offsetAt(timezone, instant);
  if (offsetAfter <= offsetBefore) return false;
  const skipped = cron.nextWallTimeAfter(instant + offsetBefore - 1);
  return skipped !== null && skipped < instant + offsetAfter;
}

/**
 * When `instant` falls soon after clocks were set back, the wall times up to the moment of the set-back have
 * already had their first occurrence: returns the last such wall time (or -Infinity when there is none).
 */
function firstOccurrencesBehind(timezone: string, instant: number): number {
  const dayBefore = instant + 1 - DAY_MS;
  const offsetBefore = offsetAt(timezone, dayBefore);
  if (offsetBefore <= offsetAt(timezone, instant + 1)) return -Infinity;
  const change = findOffsetChange(timezone, dayBefore, instant + 1);
  return change === null ? -Infinity : change + offsetBefore - 1;
}
