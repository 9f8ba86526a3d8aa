import fc from 'fast-check';

/** A value of one cron field: its numeric bounds and, for month and day-of-week, its names. */
export interface FieldRange {
  min: number;
  max: number;
  names?: readonly string[];
}

export const SECOND: FieldRange = { min: 0, max: 59 };
export const MINUTE: FieldRange = { min: 0, max: 59 };
export const HOUR: FieldRange = { min: 0, max: 23 };
export const DAY_OF_MONTH: FieldRange = { min: 1, max: 31 };
export const MONTH: FieldRange = {
  min: 1,
  max: 12,
  names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
};
export const DAY_OF_WEEK: FieldRange = {
  min: 0,
  max: 6,
  names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'],
};

const value = (range: FieldRange) => fc.integer({ min: range.min, max: range.max });

const ordered = (range: FieldRange) =>
  fc.tuple(value(range), value(range)).map(([a, b]) => (a <= b ? [a, b] : [b, a]) as [number, number]);

/** One list item of a field, always within its bounds: a value, a range, or a stepped wildcard or range. */
function validItem(range: FieldRange): fc.Arbitrary<string> {
  const span = range.max - range.min + 1;
  const items: fc.Arbitrary<string>[] = [
    value(range).map(String),
    ordered(range).map(([low, high]) => `${low}-${high}`),
    fc.integer({ min: 1, max: span }).map((step) => `*/${step}`),
    fc
      .tuple(ordered(range), fc.integer({ min: 1, max: span }))
      .map(([[low, high], step]) => `${low}-${high}/${step}`),
  ];
  if (range.names !== undefined) {
    const names = range.names;
    items.push(fc.integer({ min: 0, max: names.length - 1 }).map((index) => names[index]!));
  }
  return fc.oneof(...items);
}

/** A whole field that both sched and any Vixie-style cron accept: `*`, or a list of valid items. */
export function validField(range: FieldRange): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant('*') },
    {
      weight: 5,
      arbitrary: fc.array(validItem(range), { minLength: 1, maxLength: 3 }).map((items) => items.join(',')),
    },
  );
}

/** The values one field (as `validField` writes it: values, names, ranges, steps, lists) allows. */
export function expandField(text: string, range: FieldRange): Set<number> {
  const allowed = new Set<number>();
  const read = (token: string): number => {
    const named = range.names?.indexOf(token.toUpperCase()) ?? -1;
    return named >= 0 ? named + range.min : Number(token);
  };
  for (const item of text.split(',')) {
    const [base = '', stepText] = item.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    const [low, high] =
      base === '*'
        ? [range.min, range.max]
        : base.includes('-')
          ? base.split('-').map(read)
          : [read(base), read(base)];
    const last = stepText !== undefined && !base.includes('-') && base !== '*' ? range.max : high!;
    for (let value = low!; value <= last; value += step) allowed.add(value);
  }
  return allowed;
}

/**
 * Expressions both implementations read the same way: five fields, or six with seconds. Day-of-month stays `*`
 * when day-of-week is restricted half the time, so both the AND-free and the OR rules of the two fields are hit.
 */
export const validCronExpression: fc.Arbitrary<string> = fc
  .record({
    withSeconds: fc.boolean(),
    second: validField(SECOND),
    minute: validField(MINUTE),
    hour: validField(HOUR),
    dayOfMonth: validField(DAY_OF_MONTH),
    month: validField(MONTH),
    dayOfWeek: validField(DAY_OF_WEEK),
  })
  // `31 APR` names no day at all: sched refuses it (INVALID_SCHEDULE), so it is not a valid expression here.
  .filter((f) => dayExists(f.dayOfMonth, f.month))
  .map((f) =>
    [...(f.withSeconds ? [f.second] : []), f.minute, f.hour, f.dayOfMonth, f.month, f.dayOfWeek].join(' '),
  );

const LONGEST_DAY_OF = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function dayExists(dayOfMonth: string, month: string): boolean {
  const months = [...expandField(month, MONTH)];
  return [...expandField(dayOfMonth, DAY_OF_MONTH)].some((day) =>
    months.some((m) => day <= LONGEST_DAY_OF[m - 1]!),
  );
}

/** Tokens that are valid somewhere, out of range, or nonsense: to build expressions that are often wrong. */
const anyToken = fc.oneof(
  fc.constantFrom(
    '*',
    '?',
    'L',
    'W',
    'LW',
    '5L',
    '1#2',
    '15W',
    'MON',
    'jan',
    'H',
    '*/0',
    '/',
    '-',
    ',',
    '#',
    '@daily',
  ),
  fc.integer({ min: -5, max: 100 }).map(String),
  fc.tuple(fc.integer({ min: -2, max: 70 }), fc.integer({ min: -2, max: 70 })).map(([a, b]) => `${a}-${b}`),
  fc.tuple(fc.integer({ min: -2, max: 70 }), fc.integer({ min: -2, max: 70 })).map(([a, b]) => `${a}/${b}`),
  fc.string({ maxLength: 4 }),
  fc.string({ unit: 'grapheme', maxLength: 3 }),
);

/** Anything a user might type as `--cron`: near misses, macros, wrong field counts, unicode and control text. */
export const anyCronText: fc.Arbitrary<string> = fc.oneof(
  validCronExpression,
  fc
    .array(
      fc.array(anyToken, { minLength: 1, maxLength: 3 }).map((items) => items.join(',')),
      {
        minLength: 0,
        maxLength: 8,
      },
    )
    .map((fields) => fields.join(' ')),
  fc.constantFrom(
    '@hourly',
    '@daily',
    '@weekly',
    '@monthly',
    '@yearly',
    '@annually',
    '@midnight',
    '@reboot',
    '@every',
    '@',
  ),
  fc.string({ maxLength: 40 }),
);

/** Zones with and without daylight saving, north and south, whole-hour and half-hour shifts. */
export const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Australia/Lord_Howe',
  'Australia/Sydney',
  'America/Santiago',
  'Asia/Kolkata',
  'Pacific/Chatham',
  'America/St_Johns',
  'Europe/London',
] as const;

export const zone = fc.constantFrom(...ZONES);

/**
 * A starting instant between 2000 and 2040, to the millisecond; half of them in March, April, September, October
 * or November, when the zones above change their clocks.
 */
export const startInstant: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) }),
  fc
    .record({
      year: fc.integer({ min: 2000, max: 2039 }),
      month: fc.constantFrom(2, 3, 8, 9, 10),
      day: fc.integer({ min: 1, max: 31 }),
      minute: fc.integer({ min: 0, max: 24 * 60 - 1 }),
      ms: fc.integer({ min: 0, max: 59_999 }),
    })
    .map(({ year, month, day, minute, ms }) => Date.UTC(year, month, day, 0, minute) + ms),
);
