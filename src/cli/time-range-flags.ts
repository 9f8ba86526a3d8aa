import { Flags } from '@oclif/core';
import type { Viewer } from './format/time.js';

const TIME_FORMS =
  'a duration ago (30m, 2h, 7d) or a time (2026-12-01, "2026-12-01 09:00", 2026-12-01T08:00Z)';

/** `--since` and `--until`, read as `sched history` and `sched retry --job` read them. */
export function timeRangeFlags(what: string) {
  return {
    since: Flags.string({
      summary: `Only ${what} from this time on: ${TIME_FORMS}.`,
      helpValue: 'TIME',
    }),
    until: Flags.string({
      summary: `Only ${what} up to this time (default: now), written as for --since.`,
      helpValue: 'TIME',
    }),
  };
}

/** The flags as epoch ms, in the viewer's zone and relative to the viewer's now; refuses an empty range. */
export async function timeRangeFromFlags(
  flags: { since?: string; until?: string },
  viewer: Viewer,
): Promise<{ since?: number; until?: number }> {
  if (flags.since === undefined && flags.until === undefined) return {};
  // Reading a time loads the zone machinery (luxon), which a plain `sched history` does not need.
  const { checkTimeRange, parseTimeBound } = await import('../core/time-bound.js');
  const read = (text: string | undefined, flag: string) =>
    text === undefined ? undefined : parseTimeBound(text, flag, viewer.now, viewer.zone);
  const since = read(flags.since, '--since');
  const until = read(flags.until, '--until');
  checkTimeRange(since, until);
  return { since, until };
}
