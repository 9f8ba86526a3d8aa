import type { Schedule } from '../core/job.js';
import { nextOccurrence, type DstPolicy, type ListedOccurrence } from '../core/schedule/occurrences.js';

/**
 * The next `count` occurrences that fire from `from` (inclusive), in order. With `includePassed`, the
 * occurrences the DST policy passes over (a skipped wall time under gap=skip, the repeated wall time that the
 * repeat setting does not run) are listed too, between the ones that fire, with `fires: false`.
 */
export function listNextOccurrences(
  schedule: Schedule,
  from: number,
  timezone: string,
  dst: DstPolicy,
  count: number,
  includePassed: boolean,
): ListedOccurrence[] {
  const listed: ListedOccurrence[] = [];
  let after = from - 1;
  for (let fired = 0; fired < count; fired++) {
    const { fire, passed } = nextOccurrence(schedule, after, timezone, dst);
    if (includePassed) listed.push(...passed.map((occurrence) => ({ ...occurrence, fires: false })));
    if (fire === null) break;
    listed.push({ ...fire, fires: true });
    after = fire.at;
  }
  return listed;
}
