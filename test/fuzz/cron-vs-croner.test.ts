import { Cron } from 'croner';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextFireTimes } from '../../src/core/schedule/next.js';
import { findOffsetChange } from '../../src/core/schedule/timezone.js';
import { ZONES, startInstant, validCronExpression, zone } from './support/cron-arbitraries.js';
import { costlyRuns } from './support/fuzz-runs.js';

const FIRES = 8;

const iso = (instant: number): string => new Date(instant).toISOString();

/** croner's next instants, or null when croner refuses the expression. */
function cronerFires(expression: string, timezone: string, after: number): number[] | null {
  let cron: Cron;
  try {
    // no-wildcard: croner's closest rule to sched's, which treats explicit hours as fixed-time jobs.
    cron = new Cron(expression, { timezone, mode: '5-or-6-parts', fixedTimeRule: 'no-wildcard' });
  } catch {
    return null;
  }
  return cron.nextRuns(FIRES, new Date(after)).map((date) => date.getTime());
}

/**
 * Whether the two implementations are defined to agree where the clocks change, not only between changes.
 * sched's rule keys on the hour field alone (README, "Daylight saving"): `*` or `*\/n` fires at every real instant,
 * anything else is a fixed-time job (shift into a gap, first of a repeat). croner's `no-wildcard` rule keys on
 * seconds, minutes and hours together: a wildcard or step in any of them makes an interval job. They agree when
 * the hour is a wildcard (both interval), and when none of the three has a wildcard or step (both fixed-time).
 * They differ on purpose for, say, `* 2 * * *` (sched: fixed-time; croner: interval) and `0 0-23/2 * * *`.
 */
function agreesAcrossClockChanges(expression: string): boolean {
  const parts = expression.split(' ');
  const [second, minute, hour] = parts.length === 6 ? parts : ['0', ...parts];
  if (/^\*(\/\d+)?$/.test(hour!)) return true;
  return ![second, minute, hour].some((field) => /[*?/]/.test(field!));
}

/** The instants in `year` at which the zone's clocks change (none for zones without daylight saving). */
function clockChanges(timezone: string, year: number): number[] {
  const changes: number[] = [];
  for (let from = Date.UTC(year, 0, 1); ;) {
    const change = findOffsetChange(timezone, from, Date.UTC(year + 1, 0, 1));
    if (change === null) return changes;
    changes.push(change);
    from = change;
  }
}

const DST_ZONES = ZONES.filter((name) => clockChanges(name, 2026).length > 0);

/** A zone with daylight saving and an instant up to two days before one of its clock changes. */
const nearAClockChange = fc
  .record({
    timezone: fc.constantFrom(...DST_ZONES),
    year: fc.integer({ min: 2000, max: 2039 }),
    which: fc.nat(),
    // 1 ms before the jump on its own: next.ts once missed the shifted run from there.
    before: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 2 * 86_400_000 })),
  })
  // Some zones kept one offset all year in some years (Chile in 2015).
  .filter(({ timezone, year }) => clockChanges(timezone, year).length > 0)
  .map(({ timezone, year, which, before }) => {
    const changes = clockChanges(timezone, year);
    return { timezone, after: changes[which % changes.length]! - before };
  });

/** Times of day around the night hours at which clocks change, all fixed-time (no wildcard, no step). */
const fixedTimeNearNight = fc
  .record({
    second: fc.constantFrom('0', '0', '30'),
    minutes: fc.uniqueArray(fc.constantFrom(0, 1, 15, 29, 30, 44, 45, 59), { minLength: 1, maxLength: 2 }),
    hours: fc.uniqueArray(fc.constantFrom(0, 1, 2, 3, 4, 23), { minLength: 1, maxLength: 2 }),
  })
  .map(({ second, minutes, hours }) => `${second} ${minutes.join(',')} ${hours.join(',')} * * *`);

/** Every minute or hour of the night: interval jobs for both. */
const wildcardHourNearNight = fc
  .record({
    minute: fc.constantFrom('*', '*/15', '0', '30', '45', '0,30'),
    hour: fc.constantFrom('*', '*/2'),
  })
  .map(({ minute, hour }) => `${minute} ${hour} * * *`);

/** Compares with the case named, so a failure shows which expression, zone and instant disagree. */
function expectSameFires(
  expression: string,
  timezone: string,
  after: number,
  ours: number[],
  theirs: number[],
) {
  const shown = { expression, timezone, after: iso(after) };
  expect({ ...shown, fires: ours.map(iso) }).toEqual({ ...shown, fires: theirs.map(iso) });
}

// Each run walks two calendars, with luxon's zone arithmetic for sched's: several ms a run.
const RUNS = { numRuns: costlyRuns(50) };

describe('sched and croner, for any expression both accept', () => {
  it('given a zone with or without daylight saving and any instant, then both give the same next instants, up to the first clock change when their DST rules differ', () => {
    fc.assert(
      fc.property(validCronExpression, zone, startInstant, (expression, timezone, after) => {
        const theirs = cronerFires(expression, timezone, after);
        fc.pre(theirs !== null);
        const ours = nextFireTimes({ kind: 'cron', expression }, after, timezone, FIRES);
        if (agreesAcrossClockChanges(expression))
          return expectSameFires(expression, timezone, after, ours, theirs!);
        const change = findOffsetChange(timezone, after, Math.max(...ours, ...theirs!)) ?? Infinity;
        const before = (fire: number) => fire < change;
        expectSameFires(expression, timezone, after, ours.filter(before), theirs!.filter(before));
      }),
      RUNS,
    );
  });

  it('given a fixed-time or wildcard-hour expression and an instant just before a clock change, then both give the same next instants through the change', () => {
    fc.assert(
      fc.property(
        fc.oneof(fixedTimeNearNight, wildcardHourNearNight),
        nearAClockChange,
        (expression, near) => {
          const theirs = cronerFires(expression, near.timezone, near.after);
          expect(theirs).not.toBeNull();
          const ours = nextFireTimes({ kind: 'cron', expression }, near.after, near.timezone, FIRES);
          expectSameFires(expression, near.timezone, near.after, ours, theirs!);
        },
      ),
      RUNS,
    );
  });

  it.each([
    ['America/New_York', '30 2 * * *', '2026-03-08T07:00:00.000Z'],
    ['Europe/Berlin', '0 2 * * *', '2026-03-29T01:00:00.000Z'],
    ['Australia/Lord_Howe', '15 2 * * *', '2026-10-03T15:30:00.000Z'],
  ])(
    'given %s, "%s" and an instant 1 ms before the spring-forward jump, then both fire at the jump (found by the property above)',
    (timezone, expression, jump) => {
      const after = Date.parse(jump) - 1;
      const ours = nextFireTimes({ kind: 'cron', expression }, after, timezone, 2);
      expect(ours[0]).toBe(Date.parse(jump));
      expectSameFires(
        expression,
        timezone,
        after,
        ours,
        cronerFires(expression, timezone, after)!.slice(0, 2),
      );
    },
  );
});
