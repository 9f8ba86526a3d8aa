import { formatDuration } from '../duration.js';
import { zonedParts, type ZonedParts } from '../zoned-parts.js';
import type { Schedule } from '../job.js';
import { parseCronFields, type CronFields } from './cron-fields.js';

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const DAY_ABBREVIATIONS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];
const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth'];

/** A short phrase for people: `at 09:00 on weekdays (Europe/Berlin)`, `every 30s`, `once at 2026-12-01 09:00 Europe/Berlin`. */
export function describeSchedule(schedule: Schedule, timezone: string): string {
  switch (schedule.kind) {
    case 'every':
      return `every ${schedule.intervalMs % 1_000 === 0 ? formatDuration(schedule.intervalMs) : `${schedule.intervalMs}ms`}`;
    case 'at': {
      const local = wallClockReading(schedule.at, timezone);
      if (local === undefined) return `once at ${new Date(schedule.at).toISOString()}`;
      return `once at ${local} ${timezone}`;
    }
    case 'cron':
      return `${describeCron(schedule.expression) ?? `cron ${schedule.expression}`} (${timezone})`;
    case 'none':
      return 'no schedule of its own';
  }
}

/**
 * `2026-12-01 09:00`, with `:30` seconds only when not zero, on the zone's wall clock; undefined for a
 * zone Intl does not know. Intl rather than luxon: luxon's load would be most of `sched show`'s own start-up.
 */
function wallClockReading(at: number, timezone: string): string | undefined {
  let p: ZonedParts;
  try {
    p = zonedParts(at, timezone);
  } catch {
    return undefined;
  }
  const seconds = p.second === '00' ? '' : `:${p.second}`;
  return `${p.year.padStart(4, '0')}-${p.month}-${p.day} ${p.hour}:${p.minute}${seconds}`;
}

function describeCron(expression: string): string | undefined {
  let fields: CronFields;
  try {
    fields = parseCronFields(expression);
  } catch {
    return undefined;
  }
  const time = describeTimeOfDay(fields);
  const days = describeDays(fields);
  if (time === undefined || days === undefined) return undefined;
  if (days === '') return time.startsWith('at ') ? `${time} every day` : time;
  return `${time} ${days}`;
}

function describeTimeOfDay({ second, minute, hour }: CronFields): string | undefined {
  if (second === '*' && minute === '*' && hour === '*') return 'every second';
  if (second !== '0') return undefined;
  const hours = numberList(hour);
  if (/^\d+$/.test(minute) && hours !== undefined && hours.length <= 4) {
    return `at ${joinWords(hours.map((value) => `${pad(value)}:${pad(Number(minute))}`))}`;
  }
  const minuteStep = divisorStep(minute, 60);
  if (hour === '*' && (minute === '*' || minuteStep === 1)) return 'every minute';
  if (hour === '*' && minuteStep !== undefined) return `every ${minuteStep} minutes`;
  const hourStep = hour === '*' ? 1 : divisorStep(hour, 24);
  if (/^\d+$/.test(minute) && hourStep !== undefined) {
    const every = hourStep === 1 ? 'every hour' : `every ${hourStep} hours`;
    return Number(minute) === 0 ? every : `${every} at :${pad(Number(minute))}`;
  }
  return undefined;
}

function describeDays({ dayOfMonth, month, dayOfWeek }: CronFields): string | undefined {
  const anyDayOfMonth = dayOfMonth === '*' || dayOfMonth === '?';
  const anyDayOfWeek = dayOfWeek === '*' || dayOfWeek === '?';
  if (month !== '*') {
    const months = numberList(month);
    const days = numberList(dayOfMonth);
    if (months?.length !== 1 || days?.length !== 1 || !anyDayOfWeek) return undefined;
    return `on ${days[0]} ${MONTH_NAMES[(months[0] ?? 1) - 1]}`;
  }
  if (anyDayOfMonth && anyDayOfWeek) return '';
  if (anyDayOfWeek) {
    if (dayOfMonth === 'L') return 'on the last day of the month';
    if (dayOfMonth === 'LW') return 'on the last weekday of the month';
    const days = numberList(dayOfMonth);
    if (days === undefined) return undefined;
    return `on day${days.length > 1 ? 's' : ''} ${joinWords(days.map(String))} of the month`;
  }
  if (!anyDayOfMonth) return undefined;
  const nth = /^(\w+)#([1-5])$/.exec(dayOfWeek);
  const last = /^(\w+)L$/.exec(dayOfWeek);
  if (nth !== null || last !== null) {
    const day = weekdayNumber(nth?.[1] ?? last?.[1] ?? '');
    const which = nth === null ? 'last' : ORDINALS[Number(nth[2]) - 1];
    return day === undefined ? undefined : `on the ${which} ${DAY_NAMES[day]} of the month`;
  }
  const normalized = dayOfWeek.toUpperCase();
  if (normalized === '1-5' || normalized === 'MON-FRI') return 'on weekdays';
  if (['0,6', '6,0', '6,7', 'SAT,SUN', 'SUN,SAT'].includes(normalized)) return 'on weekends';
  const weekdays = dayOfWeek.split(',').map(weekdayNumber);
  if (weekdays.some((day) => day === undefined)) return undefined;
  return `on ${joinWords(weekdays.map((day) => `${DAY_NAMES[day ?? 0]}s`))}`;
}

function weekdayNumber(token: string): number | undefined {
  if (/^[0-7]$/.test(token)) return Number(token) % 7;
  const index = DAY_ABBREVIATIONS.indexOf(token.toUpperCase());
  return index >= 0 ? index : undefined;
}

function numberList(field: string): number[] | undefined {
  return /^\d+(,\d+)*$/.test(field) ? field.split(',').map(Number) : undefined;
}

/** `*\/n` where n divides the cycle evenly, so "every n" holds across the wrap-around too. */
function divisorStep(field: string, cycle: number): number | undefined {
  const match = /^[*?]\/(\d+)$/.exec(field);
  const step = Number(match?.[1]);
  return match !== null && step > 0 && cycle % step === 0 ? step : undefined;
}

function joinWords(words: string[]): string {
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}
