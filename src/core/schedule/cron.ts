import { CronExpressionParser, type CronExpression } from 'cron-parser';
import { invalidCron, parseCronFields, type CronFields } from './cron-fields.js';
import type { WallTime } from './timezone.js';

/** A parsed expression that can walk a zone-free calendar; next.ts maps its wall times onto real instants. */
export interface CompiledCron {
  readonly fields: CronFields;
  /**
   * True when the hour field is `*`, `?` or `*` with a step: such jobs fire at every real instant whose wall
   * time matches. Jobs with explicit hours are fixed-time jobs and get the daylight-saving gap/repeat rule.
   */
  readonly hourIsWildcard: boolean;
  /** The first matching wall time strictly after `wall`, or null when none can be found. */
  nextWallTimeAfter(wall: WallTime): WallTime | null;
}

// W filtering rejects at most four candidate days in a month whose target day exists, so this is decades.
const MAX_WEEKDAY_REJECTIONS = 500;
const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function compileCron(expression: string): CompiledCron {
  const fields = parseCronFields(expression);
  const weekdayRule = nearestWeekdayRule(fields.dayOfMonth);
  const text = [
    fields.second,
    fields.minute,
    fields.hour,
    weekdayRule?.candidates ?? fields.dayOfMonth,
    fields.month,
    fields.dayOfWeek,
  ];
  let parser: CronExpression;
  try {
    // The parser only ever sees UTC, which has no daylight saving: zone handling is ours (see next.ts).
    parser = CronExpressionParser.parse(text.map(withoutRepeatedValues).join(' '), {
      tz: 'UTC',
      currentDate: 0,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/day of month/i.test(message)) {
      throw invalidCron(
        expression,
        `the day-of-month field (${fields.dayOfMonth}) names no day that exists in the month field (${fields.month})`,
        { field: 'day-of-month', value: fields.dayOfMonth },
      );
    }
    throw invalidCron(expression, message.replace(/\.$/, ''));
  }
  const longestMonth = Math.max(...parser.fields.month.values.map((month) => DAYS_IN_MONTH[month - 1] ?? 31));
  if (weekdayRule?.target !== undefined && weekdayRule.target > longestMonth) {
    throw invalidCron(
      expression,
      `the day-of-month field (${fields.dayOfMonth}) names no day that exists in the month field (${fields.month})`,
      { field: 'day-of-month', value: fields.dayOfMonth },
    );
  }
  return {
    fields,
    hourIsWildcard: /^[*?](\/\d+)?$/.test(fields.hour),
    nextWallTimeAfter(wall) {
      parser.reset(new Date(wall));
      for (let rejected = 0; rejected < MAX_WEEKDAY_REJECTIONS; rejected++) {
        let next: number;
        try {
          next = parser.next().getTime();
        } catch {
          return null; // cron-parser gives up after its own loop limit: nothing matches within reach
        }
        if (weekdayRule === undefined || weekdayRule.matches(next)) return next;
        const day = new Date(next);
        parser.reset(new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() + 1) - 1));
      }
      return null;
    },
  };
}

/**
 * A list whose items overlap (`1-5,MON`, `0,7`, `*\/15,30`) is valid cron, but cron-parser refuses a field that
 * names a value twice. Each plain item is expanded by cron-parser itself, so the values mean what they would
 * have meant, and the list is handed over with each value once; `L`, `W` and `#` items stay as written.
 */
function withoutRepeatedValues(field: string, index: number): string {
  if (!field.includes(',')) return field;
  const specialItem = index === 3 ? /^(L|\d*L?W)$/i : index === 5 ? /^\w+(L|#.*)$/i : /$^/;
  const special = field.split(',').filter((item) => specialItem.test(item));
  const values = new Set<number>();
  for (const item of field.split(',')) {
    if (special.includes(item)) continue;
    const alone = ['0', '0', '0', '*', '*', '*'].map((wildcard, position) =>
      position === index ? item : wildcard,
    );
    const parsed = CronExpressionParser.parse(alone.join(' '), { tz: 'UTC', currentDate: 0 });
    const key = (['second', 'minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek'] as const)[index]!;
    for (const value of parsed.fields[key].values)
      if (typeof value === 'number') values.add(index === 5 ? value % 7 : value);
  }
  return [...[...values].sort((a, b) => a - b).map(String), ...special].join(',');
}

/** `15W` (the weekday nearest the 15th, within the month) and `LW` (the last weekday), which cron-parser lacks. */
function nearestWeekdayRule(
  dayOfMonth: string,
): { target: number | undefined; candidates: string; matches(wall: WallTime): boolean } | undefined {
  const match = /^(L|\d+)W$/.exec(dayOfMonth);
  if (match === null) return undefined;
  const target = match[1] === 'L' ? undefined : Number(match[1]);
  return {
    target,
    candidates: target === undefined ? '26-31' : `${Math.max(1, target - 2)}-${Math.min(31, target + 2)}`,
    matches(wall) {
      const date = new Date(wall);
      const year = date.getUTCFullYear();
      const month = date.getUTCMonth();
      const daysInMonth = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
      const day = target ?? daysInMonth;
      if (day > daysInMonth) return false;
      const weekday = new Date(Date.UTC(year, month, day)).getUTCDay();
      let nearest = day;
      if (weekday === 6) nearest = day === 1 ? 3 : day - 1;
      if (weekday === 0) nearest = day === daysInMonth ? day - 2 : day + 1;
      return date.getUTCDate() === nearest;
    },
  };
}

/** Throws INVALID_SCHEDULE, naming the wrong field, unless cron-parser and sched both accept the expression. */
export function assertCronExpression(expression: string): void {
  compileCron(expression);
}
