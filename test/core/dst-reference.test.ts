import { IANAZone } from 'luxon';
import { describe, expect, it } from 'vitest';
import { compileCron } from '../../src/core/schedule/cron.js';
import { nextFireTime, nextFireTimes } from '../../src/core/schedule/next.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Every instant in 2026 at which the zone's offset changes, found by an hourly scan with luxon. */
function transitionsIn2026(zone: string): number[] {
  const found: number[] = [];
  const offsetAt = (instant: number): number => IANAZone.create(zone).offset(instant);
  for (
    let instant = Date.parse('2026-01-01T00:00:00Z');
    instant < Date.parse('2027-01-01T00:00:00Z');
    instant += HOUR
  ) {
    if (offsetAt(instant) !== offsetAt(instant + HOUR)) found.push(instant + HOUR);
  }
  return found;
}

/**
 * The rule spelled out minute by minute, independent of next.ts: wildcard-hour jobs fire at each real minute whose
 * wall time matches; fixed-time jobs fire each matching wall time once, at its first occurrence, or if the clocks
 * skip it, at the first instant whose wall time is later.
 */
function referenceFires(expression: string, zone: string, from: number, to: number): number[] {
  const cron = compileCron(expression);
  const minutes: { instant: number; wall: number }[] = [];
  for (let instant = from - 3 * HOUR; instant <= to + 3 * HOUR; instant += MINUTE) {
    minutes.push({ instant, wall: instant + IANAZone.create(zone).offset(instant) * MINUTE });
  }
  const matchingWalls = new Set<number>();
  const lastWall = Math.max(...minutes.map((minute) => minute.wall));
  for (
    let wall = cron.nextWallTimeAfter(Math.min(...minutes.map((minute) => minute.wall)) - 1);
    wall !== null && wall <= lastWall;
    wall = cron.nextWallTimeAfter(wall)
  ) {
    matchingWalls.add(wall);
  }
  const matches = (wall: number): boolean => matchingWalls.has(wall);
  const fires = new Set<number>();
  if (cron.hourIsWildcard) {
    for (const { instant, wall } of minutes) if (matches(wall)) fires.add(instant);
  } else {
    const firstInstantShowing = new Map<number, number>();
    minutes.forEach(({ instant, wall }, index) => {
      const previousWall = minutes[index - 1]?.wall ?? wall - MINUTE;
      // Wall times the clocks jumped over belong to the first instant after the jump.
      for (let skipped = previousWall + MINUTE; skipped <= wall; skipped += MINUTE) {
        if (!firstInstantShowing.has(skipped)) firstInstantShowing.set(skipped, instant);
      }
    });
    for (const [wall, instant] of firstInstantShowing) if (matches(wall)) fires.add(instant);
  }
  return [...fires].filter((instant) => instant > from && instant <= to).sort((a, b) => a - b);
}

const ZONES = [
  'America/New_York',
  'Europe/London',
  'Australia/Lord_Howe',
  'America/Havana',
  'America/Santiago',
  'Pacific/Chatham',
  'Africa/Casablanca',
];
const EXPRESSIONS = [
  '30 2 * * *',
  '0 0 * * *',
  '59 23 * * *',
  '15,45 0-3 * * *',
  '*/10 1 * * *',
  '*/30 * * * *',
  '0 * * * *',
  '0 */2 * * *',
  '45 * * * *',
];

describe('next.ts agrees with a minute-by-minute reference around every 2026 transition', () => {
  for (const zone of ZONES) {
    const transitions = transitionsIn2026(zone);
    it.each(EXPRESSIONS)(
      `in ${zone} (${transitions.length} transitions), "%s" fires exactly when the reference does`,
      (expression) => {
        for (const transition of transitions) {
          const from = transition - 30 * HOUR;
          const to = transition + 30 * HOUR;
          const expected = referenceFires(expression, zone, from, to);
          const actual = nextFireTimes({ kind: 'cron', expression }, from, zone, expected.length + 1).filter(
            (instant) => instant <= to,
          );
          expect(actual.map((instant) => new Date(instant).toISOString())).toEqual(
            expected.map((instant) => new Date(instant).toISOString()),
          );
          for (const start of [-95, -60, -31, -1, 0, 1, 10, 29, 30, 45, 59, 60, 61, 95].map(
            (minutes) => transition + minutes * MINUTE + 7,
          )) {
            const next = nextFireTime({ kind: 'cron', expression }, start, zone);
            expect(next, `after ${new Date(start).toISOString()}`).toBe(
              expected.find((instant) => instant > start) ?? null,
            );
          }
        }
      },
    );
  }
});
