import { CronExpressionParser, type CronExpression } from 'cron-parser';
import { SchedError } from '../errors.js';
import type { WallTime } from './timezone.js';

const CRON_HINT =
  'Cron fields are "minute hour day-of-month month day-of-week", with an optional leading second field; ' +
  'e.g. "0 9 * * 1-5" runs at 09:00 on weekdays. Macros: @hourly, @daily, @weekly, @monthly, @yearly.';

const MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** The six fields of a cron expression as written (macros expanded, a missing second field is "0"). */
export interface CronFields {
  second: string;
  minute: string;
  hour: string;
  dayOfMonth: string;
  month: string;
  dayOfWeek: string;
}

interface FieldRule {
  key: keyof CronFields;
  label: string;
  min: number;
  max: number;
  names?: { list: readonly string[]; first: number; what: string };
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const WEEKDAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const RULES: readonly FieldRule[] = [
  { key: 'second', label: 'second', min: 0, max: 59 },
  { key: 'minute', label: 'minute', min: 0, max: 59 },
  { key: 'hour', label: 'hour', min: 0, max: 23 },
  { key: 'dayOfMonth', label: 'day-of-month', min: 1, max: 31 },
  {
    key: 'month',
    label: 'month',
    min: 1,
    max: 12,
    names: { list: MONTHS, first: 1, what: 'month name (JAN-DEC)' },
  },
  {
    key: 'dayOfWeek',
    label: 'day-of-week',
    min: 0,
    max: 7,
    names: { list: WEEKDAYS, first: 0, what: 'day name (SUN-SAT)' },
  },
];

function invalid(expression: string, reason: string, details: Record<string, unknown> = {}): SchedError {
  return new SchedError('INVALID_SCHEDULE', `Invalid cron expression "${expression}": ${reason}.`, {
    hint: CRON_HINT,
    details: { expression, ...details },
  });
}

/** Splits and checks an expression field by field, so an error can name the field that is wrong. */
export function parseCronFields(expression: string): CronFields {
  const trimmed = expression.trim();
  if (trimmed === '')
    throw new SchedError('INVALID_SCHEDULE', 'The cron expression is empty.', { hint: CRON_HINT });
  if (trimmed.startsWith('@')) {
    const macro = MACROS[trimmed.toLowerCase()];
    if (trimmed.toLowerCase() === '@reboot') {
      throw invalid(
        expression,
        '@reboot is not supported, because sched fires jobs by the clock, not at boot; start the command from a systemd unit instead',
      );
    }
    if (macro === undefined)
      throw invalid(
        expression,
        `unknown macro ${trimmed}; use @hourly, @daily, @weekly, @monthly or @yearly`,
      );
    return parseCronFields(macro);
  }
  const parts = trimmed.split(/\s+/);
  if (parts.length === 7) {
    throw invalid(
      expression,
      'it has 7 fields, and a year field is not supported; use 5 fields, or 6 with a leading second field',
    );
  }
  if (parts.length < 5 || parts.length > 7) {
    throw invalid(
      expression,
      `it has ${parts.length} field${parts.length === 1 ? '' : 's'}; expected 5, or 6 with a leading second field`,
    );
  }
  const [second = '0', minute = '', hour = '', dayOfMonth = '', month = '', dayOfWeek = ''] =
    parts.length === 6 ? parts : ['0', ...parts];
  const fields: CronFields = { second, minute, hour, dayOfMonth, month, dayOfWeek };
  for (const rule of RULES) {
    const text = fields[rule.key];
    const items = text.split(',');
    for (const item of items) {
      const problem = itemProblem(rule, item, items.length);
      if (problem !== undefined) {
        const shown = item === '' ? text : item;
        throw invalid(expression, `the ${rule.label} field (${shown}) ${problem}`, {
          field: rule.label,
          value: shown,
        });
      }
    }
  }
  if (/W$/.test(dayOfMonth) && !isWildcard(dayOfWeek)) {
    throw invalid(
      expression,
      `the day-of-month field (${dayOfMonth}) uses W, which cannot be combined with a day-of-week (${dayOfWeek}); set day-of-week to *`,
      { field: 'day-of-month', value: dayOfMonth },
    );
  }
  return fields;
}

function isWildcard(field: string): boolean {
  return field === '*' || field === '?';
}

function itemProblem(rule: FieldRule, item: string, itemCount: number): string | undefined {
  if (item === '') return 'has an empty entry in its list';
  if (/(^|[^A-Z])H([^A-Z]|$)/i.test(item))
    return 'uses H (a hashed random value), which sched does not support; write a fixed value';
  const [base = '', step, ...rest] = item.split('/');
  if (rest.length > 0) return 'has more than one "/"';
  if (step !== undefined && (!/^\d+$/.test(step) || Number(step) < 1))
    return `has the step "/${step}", but a step must be a whole number of 1 or more`;
  if (isWildcard(base)) return undefined;
  if (step === undefined && rule.key === 'dayOfMonth') {
    if (base === 'L') return undefined;
    const weekday = /^(L|\d+)W$/.exec(base);
    if (weekday !== null) {
      if (itemCount > 1) return 'uses W, which must stand alone (nW or LW), not in a list';
      const day = weekday[1] === 'L' ? rule.max : Number(weekday[1]);
      return day >= rule.min && day <= rule.max ? undefined : 'must name a day between 1 and 31 before W';
    }
  }
  if (step === undefined && rule.key === 'dayOfWeek') {
    if (base === 'L') return 'needs a weekday before L, e.g. 5L for the last Friday of the month';
    const last = /^(\w+)L$/.exec(base);
    if (last !== null) return boundProblem(rule, last[1] ?? '');
    const nth = /^(\w+)#(.*)$/.exec(base);
    if (nth !== null) {
      if (itemCount > 1) return 'uses #, which must stand alone, not in a list';
      if (!/^[1-5]$/.test(nth[2] ?? ''))
        return 'must have a week number from 1 to 5 after #, e.g. 1#2 for the second Monday';
      return boundProblem(rule, nth[1] ?? '');
    }
  }
  const bounds = base.split('-');
  if (bounds.length > 2) return 'is not a valid range; write it as low-high';
  for (const bound of bounds) {
    const problem = boundProblem(rule, bound);
    if (problem !== undefined) return problem;
  }
  const [low = 0, high = 0] = bounds.map((bound) => boundValue(rule, bound) ?? 0);
  return bounds.length === 2 && low > high
    ? 'is a range that runs backwards; write the smaller value first'
    : undefined;
}

function boundValue(rule: FieldRule, token: string): number | undefined {
  if (/^\d+$/.test(token)) return Number(token);
  const index = rule.names?.list.indexOf(token.toUpperCase()) ?? -1;
  return index >= 0 && rule.names !== undefined ? index + rule.names.first : undefined;
}

function boundProblem(rule: FieldRule, token: string): string | undefined {
  const value = boundValue(rule, token);
  if (value === undefined)
    return rule.names === undefined ? 'is not a number' : `is not a number or a ${rule.names.what}`;
  if (value < rule.min || value > rule.max) {
    return `must be between ${rule.min} and ${rule.max}${rule.key === 'dayOfWeek' ? ' (0 and 7 are Sunday)' : ''}`;
  }
  return undefined;
}

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
      throw invalid(
        expression,
        `the day-of-month field (${fields.dayOfMonth}) names no day that exists in the month field (${fields.month})`,
        { field: 'day-of-month', value: fields.dayOfMonth },
      );
    }
    throw invalid(expression, message.replace(/\.$/, ''));
  }
  const longestMonth = Math.max(...parser.fields.month.values.map((month) => DAYS_IN_MONTH[month - 1] ?? 31));
  if (weekdayRule?.target !== undefined && weekdayRule.target > longestMonth) {
    throw invalid(
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
