import { IANAZone } from 'luxon';
import { describe, expect, it } from 'vitest';
import { compileCron } from '../../src/core/schedule/cron.js';
import { nextFireTime, nextFireTimes } from '../../src/core/schedule/next.js';
import {
  DEFAULT_DST_POLICY,
  nextOccurrence,
  occurrencesBetween,
  type DstPolicy,
} from '../../src/core/schedule/occurrences.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const ZONES = ['America/New_York', 'Europe/London', 'Australia/Lord_Howe'];
const EXPRESSIONS = [
  '30 2 * * *',
  '15 2 * * *',
  '45 1 * * *',
  '30 1 * * *',
  '0 0 * * *',
  '0 1,2,3 * * *',
  '0,30 2,3 * * *',
  '15,45 0-3 * * *',
  '*/10 1 * * *',
  '* 2 * * *',
  '59 23 * * *',
  '0 9 * * 1-5',
  '*/30 * * * *',
  '0 * * * *',
  '0 */2 * * *',
  '45 * * * *',
];
const POLICIES: DstPolicy[] = [
  { gap: 'shift', repeat: 'first' },
  { gap: 'shift', repeat: 'last' },
  { gap: 'shift', repeat: 'both' },
  { gap: 'skip', repeat: 'first' },
  { gap: 'skip', repeat: 'last' },
  { gap: 'skip', repeat: 'both' },
];

/** Every instant in 2026 at which the zone's offset changes, found by an hourly scan with luxon. */
function transitionsIn2026(zone: string): number[] {
  const found: number[] = [];
  const offset = (instant: number): number => IANAZone.create(zone).offset(instant);
  for (
    let instant = Date.parse('2026-01-01T00:00:00Z');
    instant < Date.parse('2027-01-01T00:00:00Z');
    instant += HOUR
  ) {
    if (offset(instant) !== offset(instant + HOUR)) found.push(instant + HOUR);
  }
  return found;
}

/**
 * The declared DST rules spelled out minute by minute, independent of occurrences.ts. Wildcard-hour jobs fire at
 * every real minute whose wall time matches. Fixed-time jobs: a wall time shown at several instants fires at the
 * first, the last or all of them (repeat); one never shown fires at the first instant whose wall time is later
 * (gap=shift) or not at all (gap=skip). Several wall times landing on one instant fire once.
 */
function referenceFires(
  expression: string,
  zone: string,
  from: number,
  to: number,
  dst: DstPolicy,
): number[] {
  const cron = compileCron(expression);
  const minutes = minutesAround(zone, from, to);
  const matching = new Set<number>();
  const lastWall = Math.max(...minutes.map((minute) => minute.wall));
  for (
    let wall = cron.nextWallTimeAfter(Math.min(...minutes.map((minute) => minute.wall)) - 1);
    wall !== null && wall <= lastWall;
    wall = cron.nextWallTimeAfter(wall)
  ) {
    matching.add(wall);
  }
  const fires = new Set<number>();
  if (cron.hourIsWildcard) {
    for (const { instant, wall } of minutes) if (matching.has(wall)) fires.add(instant);
  } else {
    const showing = new Map<number, number[]>();
    const jumpedTo = new Map<number, number>();
    minutes.forEach(({ instant, wall }, index) => {
      showing.set(wall, [...(showing.get(wall) ?? []), instant]);
      const previousWall = minutes[index - 1]?.wall ?? wall - MINUTE;
      for (let skipped = previousWall + MINUTE; skipped < wall; skipped += MINUTE)
        jumpedTo.set(skipped, instant);
    });
    for (const wall of matching) {
      const instants = showing.get(wall);
      if (instants === undefined) {
        const jump = jumpedTo.get(wall);
        if (jump !== undefined && dst.gap === 'shift') fires.add(jump);
        continue;
      }
      const chosen =
        dst.repeat === 'both' ? instants : dst.repeat === 'first' ? instants.slice(0, 1) : instants.slice(-1);
      for (const instant of chosen) fires.add(instant);
    }
  }
  return [...fires].filter((instant) => instant > from && instant <= to).sort((a, b) => a - b);
}

const minuteCache = new Map<string, { instant: number; wall: number }[]>();

/** Each real minute from 3 h before `from` to 3 h after `to`, with the wall time the zone shows then. */
function minutesAround(zone: string, from: number, to: number): { instant: number; wall: number }[] {
  const key = `${zone} ${from} ${to}`;
  let minutes = minuteCache.get(key);
  if (minutes === undefined) {
    minutes = [];
    for (let instant = from - 3 * HOUR; instant <= to + 3 * HOUR; instant += MINUTE) {
      minutes.push({ instant, wall: instant + IANAZone.create(zone).offset(instant) * MINUTE });
    }
    minuteCache.set(key, minutes);
  }
  return minutes;
}

const iso = (instants: number[]): string[] => instants.map((instant) => new Date(instant).toISOString());

describe('with the default DST policy, nextOccurrence fires exactly when nextFireTime does', () => {
  for (const zone of ZONES) {
    const transitions = transitionsIn2026(zone);
    it.each(EXPRESSIONS)(
      `given "%s" around each 2026 transition in ${zone}, agrees at every start`,
      (expression) => {
        const schedule = { kind: 'cron' as const, expression };
        for (const transition of transitions) {
          // Starts on and between minutes, before, inside and after the changed hour, and 1 ms before the jump.
          const starts = [-95, -61, -60, -31, -1, 0, 1, 29, 30, 31, 59, 60, 61, 95].flatMap((minutes) => [
            transition + minutes * MINUTE,
            transition + minutes * MINUTE + 7,
          ]);
          starts.push(transition - 1);
          for (const start of starts) {
            expect(
              nextOccurrence(schedule, start, zone, DEFAULT_DST_POLICY).fire?.at ?? null,
              `after ${iso([start])}`,
            ).toBe(nextFireTime(schedule, start, zone));
          }
        }
      },
    );

    it.each(EXPRESSIONS)(
      `given "%s" across each 2026 transition in ${zone}, lists the same fires as nextFireTimes`,
      (expression) => {
        const schedule = { kind: 'cron' as const, expression };
        for (const transition of transitions) {
          const from = transition - 30 * HOUR;
          const to = transition + 30 * HOUR;
          const expected = nextFireTimes(schedule, from, zone, 200).filter((instant) => instant <= to);
          const { items } = occurrencesBetween(schedule, from, to, zone, DEFAULT_DST_POLICY, 1_000);
          expect(iso(items.filter((item) => item.fires).map((item) => item.at))).toEqual(iso(expected));
        }
      },
    );
  }
});

describe('every DST policy agrees with a minute-by-minute reference around every 2026 transition', () => {
  for (const zone of ZONES) {
    const transitions = transitionsIn2026(zone);
    for (const dst of POLICIES) {
      it.each(EXPRESSIONS)(
        `given "%s" in ${zone} with gap=${dst.gap}, repeat=${dst.repeat}, fires as the reference does`,
        (expression) => {
          const schedule = { kind: 'cron' as const, expression };
          for (const transition of transitions) {
            const from = transition - 30 * HOUR;
            const to = transition + 30 * HOUR;
            const { items } = occurrencesBetween(schedule, from, to, zone, dst, 1_000);
            expect(iso(items.filter((item) => item.fires).map((item) => item.at))).toEqual(
              iso(referenceFires(expression, zone, from, to, dst)),
            );
          }
        },
      );
    }
  }
});

describe('nextOccurrence and occurrencesBetween tell the same story', () => {
  it.each(POLICIES.map((dst) => [dst.gap, dst.repeat] as const))(
    'given gap=%s, repeat=%s, chaining nextOccurrence yields the listing, passed occurrences included',
    (gap, repeat) => {
      const dst = { gap, repeat };
      for (const zone of ZONES) {
        for (const transition of transitionsIn2026(zone)) {
          const schedule = { kind: 'cron' as const, expression: '0,30 1-3 * * *' };
          const from = transition - 12 * HOUR;
          const to = transition + 12 * HOUR;
          const chained = [];
          for (let cursor = from; ;) {
            const { fire, passed } = nextOccurrence(schedule, cursor, zone, dst);
            chained.push(...passed.filter((o) => o.at <= to).map((o) => ({ ...o, fires: false })));
            if (fire === null || fire.at > to) break;
            chained.push({ ...fire, fires: true });
            cursor = fire.at;
          }
          expect(chained).toEqual(occurrencesBetween(schedule, from, to, zone, dst, 1_000).items);
        }
      }
    },
  );
});
