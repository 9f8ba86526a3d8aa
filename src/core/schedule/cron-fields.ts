import { SchedError } from '../errors.js';

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

export function invalidCron(
  expression: string,
  reason: string,
  details: Record<string, unknown> = {},
): SchedError {
  return new SchedError('INVALID_SCHEDULE', `Invalid cron expression "${expression}": ${reason}.`, {
    hint: CRON_HINT,
    details: { expression, ...details },
  });
}

// Apart from cron.ts, which needs cron-parser: describing a schedule for `sched show` and `sched ls`
// reads the fields only, and cron-parser's load would be most of those commands' own start-up.

/** Splits and checks an expression field by field, so an error can name the field that is wrong. */
export function parseCronFields(expression: string): CronFields {
  const trimmed = expression.trim();
  if (trimmed === '')
    throw new SchedError('INVALID_SCHEDULE', 'The cron expression is empty.', { hint: CRON_HINT });
  if (trimmed.startsWith('@')) {
    const macro = MACROS[trimmed.toLowerCase()];
    if (trimmed.toLowerCase() === '@reboot') {
      throw invalidCron(
        expression,
        '@reboot is not supported, because sched fires jobs by the clock, not at boot; start the command from a systemd unit instead',
      );
    }
    if (macro === undefined)
      throw invalidCron(
        expression,
        `unknown macro ${trimmed}; use @hourly, @daily, @weekly, @monthly or @yearly`,
      );
    return parseCronFields(macro);
  }
  const parts = trimmed.split(/\s+/);
  if (parts.length === 7) {
    throw invalidCron(
      expression,
      'it has 7 fields, and a year field is not supported; use 5 fields, or 6 with a leading second field',
    );
  }
  if (parts.length < 5 || parts.length > 7) {
    throw invalidCron(
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
        throw invalidCron(expression, `the ${rule.label} field (${shown}) ${problem}`, {
          field: rule.label,
          value: shown,
        });
      }
    }
  }
  if (/W$/.test(dayOfMonth) && !isWildcard(dayOfWeek)) {
    throw invalidCron(
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
