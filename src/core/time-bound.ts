import { parseDuration } from './duration.js';
import { SchedError } from './errors.js';
import { parseTimeOrDate } from './schedule/at.js';

/**
 * Reads the end of a time range (`--since`, `--until`): a duration ago (`30m`, `2h`, `7d`, the duration
 * syntax of every other flag), or a time as `--from`/`--at` take it (an ISO instant, or a local time or
 * a date, its midnight, in `timezone`).
 */
export function parseTimeBound(text: string, flag: string, now: number, timezone: string): number {
  try {
    return now - parseDuration(text);
  } catch {
    // Not a duration; a time, then.
  }
  try {
    return parseTimeOrDate(text, timezone);
  } catch {
    throw new SchedError(
      'VALIDATION_FAILED',
      `Invalid ${flag} "${text}": it is neither a time nor a duration.`,
      {
        hint:
          'Give a duration ago, such as 30m, 2h or 7d, or a time, such as 2026-12-01, "2026-12-01 09:00" ' +
          '(in your time zone) or 2026-12-01T08:00Z.',
        details: { flag, value: text },
      },
    );
  }
}

/** Refuses a range whose end comes before its start: it would match nothing, which is never what was meant. */
export function checkTimeRange(since: number | undefined, until: number | undefined): void {
  if (since === undefined || until === undefined || since <= until) return;
  throw new SchedError('VALIDATION_FAILED', '--until is before --since, so the range holds no time.', {
    hint: 'Give --since the earlier time, or leave --until out to mean now.',
    details: { since: new Date(since).toISOString(), until: new Date(until).toISOString() },
  });
}
