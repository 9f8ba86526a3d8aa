import { SchedError } from '../errors.js';
import { assertTimezone, wallTimeToInstant } from './timezone.js';

const AT_HINT =
  'Write a date and time, such as 2026-12-01T09:00 or "2026-12-01 09:00:30" (read in the job\'s time zone), ' +
  'or an instant with an offset, such as 2026-12-01T09:00:00+01:00 or 2026-12-01T08:00Z.';

const AT_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Parses a one-shot instant. Text without an offset is a wall time in `timezone`: one the clocks skip means
 * the instant of the jump, one they repeat means its first occurrence (the same rule as fixed-time cron jobs).
 */
export function parseAt(text: string, timezone: string): number {
  const match = AT_PATTERN.exec(text.trim());
  const [, year, month, day, hour, minute, second = '0', fraction = '0', offset] = match ?? [];
  if (
    match === null ||
    year === undefined ||
    month === undefined ||
    day === undefined ||
    hour === undefined ||
    minute === undefined
  ) {
    throw invalidAt(text, 'it is not a date and time');
  }
  const wall = Date.UTC(
    Number(year),
    Number(month) - 1,
    Number(day),
    Number(hour),
    Number(minute),
    Number(second),
    Number(fraction.padEnd(3, '0')),
  );
  const check = new Date(wall);
  if (
    check.getUTCMonth() !== Number(month) - 1 ||
    check.getUTCDate() !== Number(day) ||
    Number(hour) > 23 ||
    Number(minute) > 59 ||
    Number(second) > 59
  ) {
    throw invalidAt(text, 'no such date or time of day');
  }
  if (offset === undefined) {
    assertTimezone(timezone);
    return wallTimeToInstant(timezone, wall);
  }
  if (offset.toUpperCase() === 'Z') return wall;
  const [, sign, offsetHours, offsetMinutes] = /^([+-])(\d{2}):?(\d{2})$/.exec(offset) ?? [];
  if (Number(offsetHours) > 23 || Number(offsetMinutes) > 59)
    throw invalidAt(text, `the offset ${offset} is out of range`);
  const offsetMs = (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000;
  return sign === '-' ? wall + offsetMs : wall - offsetMs;
}

const DATE_PATTERN = /^(\d{4}-\d{2}-\d{2})$/;

/**
 * Like `parseAt`, but a bare date is also a time: the start of that day in `timezone`. For the ends of
 * ranges and starting points (`--from`, `--to`, `why --at`); a one-shot job's `--at` stays strict, since
 * a job set for midnight by a forgotten time would fire at an hour nobody meant.
 */
export function parseTimeOrDate(text: string, timezone: string): number {
  const date = DATE_PATTERN.exec(text.trim())?.[1];
  if (date === undefined) return parseAt(text, timezone);
  try {
    return parseAt(`${date}T00:00`, timezone);
  } catch (error) {
    // Reported as what was written, not as the midnight it was read as.
    if (error instanceof SchedError && error.code === 'INVALID_SCHEDULE')
      throw invalidAt(text, 'no such date');
    throw error;
  }
}

function invalidAt(text: string, reason: string): SchedError {
  return new SchedError('INVALID_SCHEDULE', `Invalid time "${text}": ${reason}.`, {
    hint: AT_HINT,
    details: { value: text },
  });
}
