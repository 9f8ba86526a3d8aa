import { DateTime } from 'luxon';
import {
  DAY_OF_MONTH,
  DAY_OF_WEEK,
  HOUR,
  MINUTE,
  MONTH,
  SECOND,
  expandField,
  type FieldRange as Range,
} from './cron-arbitraries.js';

/**
 * Whether a wall time matches a cron expression, spelled out from the cron specification rather than from
 * sched's code: every field must match, except that when day-of-month and day-of-week are both restricted,
 * either of them matching is enough. A field is unrestricted only when it is exactly `*`: so cron-parser and croner
 * read it, while Vixie cron also counts `*\/2` as unrestricted (and so ANDs `0 0 *\/2 * 1` where they OR it).
 */
export function wallTimeMatches(expression: string, at: number, zone: string): boolean {
  const parts = expression.trim().split(/\s+/);
  const [second, minute, hour, dayOfMonth, month, dayOfWeek] = parts.length === 6 ? parts : ['0', ...parts];
  const wall = DateTime.fromMillis(at, { zone });
  const has = (text: string | undefined, range: Range, value: number) => expandField(text!, range).has(value);
  const dayMatches = has(dayOfMonth, DAY_OF_MONTH, wall.day);
  const weekdayMatches = has(dayOfWeek, DAY_OF_WEEK, wall.weekday % 7);
  const bothRestricted = dayOfMonth !== '*' && dayOfWeek !== '*';
  return (
    wall.millisecond === 0 &&
    has(second, SECOND, wall.second) &&
    has(minute, MINUTE, wall.minute) &&
    has(hour, HOUR, wall.hour) &&
    has(month, MONTH, wall.month) &&
    (bothRestricted ? dayMatches || weekdayMatches : dayMatches && weekdayMatches)
  );
}
