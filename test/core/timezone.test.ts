import { IANAZone } from 'luxon';
import { describe, expect, it } from 'vitest';
import { SchedError } from '../../src/core/errors.js';
import {
  assertTimezone,
  findOffsetChange,
  isValidTimezone,
  offsetAt,
  wallTimeToInstant,
} from '../../src/core/schedule/timezone.js';

function errorOf(action: () => unknown): SchedError {
  try {
    action();
  } catch (error) {
    if (error instanceof SchedError) return error;
    throw error;
  }
  throw new Error('expected a SchedError');
}

describe('isValidTimezone', () => {
  it('accepts canonical IANA names, UTC and tz database aliases', () => {
    for (const zone of [
      'Europe/Berlin',
      'America/New_York',
      'Australia/Lord_Howe',
      'Asia/Kathmandu',
      'UTC',
      'Etc/GMT+5',
      'US/Eastern',
    ]) {
      expect(isValidTimezone(zone), zone).toBe(true);
    }
  });

  it('refuses names that are misspelled, offsets, blank or padded', () => {
    for (const zone of ['Europe/Berlim', 'Berlin', '+05:00', '', ' Europe/Berlin', 'local']) {
      expect(isValidTimezone(zone), zone).toBe(false);
    }
  });

  it('refuses a valid zone written in the wrong case, so stored zones read as the tz database spells them', () => {
    expect(isValidTimezone('europe/berlin')).toBe(false);
    expect(isValidTimezone('Europe/BERLIN')).toBe(false);
  });
});

describe('assertTimezone', () => {
  it('given an unknown zone, throws UNKNOWN_TIMEZONE naming the zone with an IANA example in the hint', () => {
    const error = errorOf(() => assertTimezone('Mars/Olympus'));
    expect(error.code).toBe('UNKNOWN_TIMEZONE');
    expect(error.message).toContain('"Mars/Olympus"');
    expect(error.hint).toContain('Europe/Berlin');
  });

  it('given a zone in the wrong case, suggests the correctly spelled zone', () => {
    expect(errorOf(() => assertTimezone('america/new_york')).hint).toContain(
      'Did you mean America/New_York?',
    );
  });

  it('given a bare city name, suggests the zone of that city', () => {
    expect(errorOf(() => assertTimezone('New York')).hint).toContain('America/New_York');
  });

  it('given a near miss, suggests the closest zone', () => {
    expect(errorOf(() => assertTimezone('Europe/Berlim')).details).toMatchObject({
      suggestion: 'Europe/Berlin',
    });
  });

  it('given a valid zone, returns without throwing', () => {
    expect(() => assertTimezone('Europe/London')).not.toThrow();
  });
});

describe('offsetAt', () => {
  const fromLuxon = (tz: string, instant: number) => Math.round(IANAZone.create(tz).offset(instant) * 60_000);

  it('gives each instant its own offset in the hours clocks change, asked in order, backwards and at random', () => {
    // Spring-forward and fall-back instants of zones that change on the hour, on the half hour (Lord Howe
    // by 30 minutes) and at 00:00 local (Santiago), and an instant a millisecond either side of each.
    const changes = [
      ['America/New_York', Date.parse('2026-03-08T07:00:00Z')],
      ['America/New_York', Date.parse('2026-11-01T06:00:00Z')],
      ['Europe/Berlin', Date.parse('2026-03-29T01:00:00Z')],
      ['Australia/Lord_Howe', Date.parse('2026-04-04T15:00:00Z')],
      ['Australia/Lord_Howe', Date.parse('2026-10-03T15:30:00Z')],
      ['America/Santiago', Date.parse('2026-04-05T03:00:00Z')],
    ] as const;
    const asked: [string, number][] = [];
    for (const [tz, change] of changes)
      for (let step = -90; step <= 90; step += 1) asked.push([tz, change + step * 60_000 + (step % 3) - 1]);
    let seed = 7;
    const shuffled = [...asked].sort(() => ((seed = (seed * 48_271) % 2_147_483_647) % 3) - 1);
    for (const order of [asked, [...asked].reverse(), shuffled])
      for (const [tz, instant] of order)
        expect([tz, instant, offsetAt(tz, instant)]).toEqual([tz, instant, fromLuxon(tz, instant)]);
    expect(offsetAt('Europe/Berlin', Date.parse('2026-03-29T00:59:59.999Z'))).toBe(3_600_000);
    expect(offsetAt('Europe/Berlin', Date.parse('2026-03-29T01:00:00.000Z'))).toBe(7_200_000);
  });

  it('refuses an unknown zone every time it is asked', () => {
    expect(errorOf(() => offsetAt('Mars/Olympus', 0)).code).toBe('UNKNOWN_TIMEZONE');
    expect(errorOf(() => offsetAt('Mars/Olympus', 0)).code).toBe('UNKNOWN_TIMEZONE');
  });
});

describe('findOffsetChange', () => {
  it('finds the exact millisecond New York springs forward in 2026', () => {
    expect(
      findOffsetChange(
        'America/New_York',
        Date.parse('2026-03-01T00:00:00Z'),
        Date.parse('2026-03-31T00:00:00Z'),
      ),
    ).toBe(Date.parse('2026-03-08T07:00:00Z'));
  });

  it('returns null for a zone without daylight saving', () => {
    expect(
      findOffsetChange(
        'Asia/Kathmandu',
        Date.parse('2026-01-01T00:00:00Z'),
        Date.parse('2026-12-31T00:00:00Z'),
      ),
    ).toBeNull();
  });
});

describe('wallTimeToInstant', () => {
  it('given an ordinary wall time, returns the one instant the clocks show it', () => {
    expect(wallTimeToInstant('Europe/Berlin', Date.UTC(2026, 5, 1, 9, 0))).toBe(
      Date.parse('2026-06-01T07:00:00Z'),
    );
  });

  it('given a wall time skipped by spring-forward, returns the instant of the jump', () => {
    expect(wallTimeToInstant('America/New_York', Date.UTC(2026, 2, 8, 2, 30))).toBe(
      Date.parse('2026-03-08T07:00:00Z'),
    );
  });

  it('given a wall time repeated by fall-back, returns its first occurrence', () => {
    expect(wallTimeToInstant('America/New_York', Date.UTC(2026, 10, 1, 1, 30))).toBe(
      Date.parse('2026-11-01T05:30:00Z'),
    );
  });

  it("given a wall time in Lord Howe's half-hour gap, returns the instant of the jump", () => {
    expect(wallTimeToInstant('Australia/Lord_Howe', Date.UTC(2026, 9, 4, 2, 15))).toBe(
      Date.parse('2026-10-03T15:30:00Z'),
    );
  });
});
