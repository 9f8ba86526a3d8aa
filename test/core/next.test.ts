import { describe, expect, it } from 'vitest';
import type { Schedule } from '../../src/core/job.js';
import { nextFireTime, nextFireTimes } from '../../src/core/schedule/next.js';

const ms = (iso: string): number => Date.parse(iso);
const isoList = (instants: number[]): string[] => instants.map((instant) => new Date(instant).toISOString());
const cron = (expression: string): Schedule => ({ kind: 'cron', expression });

describe('nextFireTime for at', () => {
  const schedule: Schedule = { kind: 'at', at: ms('2026-12-01T08:00:00Z') };

  it('given a moment before the instant, returns the instant', () => {
    expect(nextFireTime(schedule, ms('2026-11-30T00:00:00Z'), 'UTC')).toBe(ms('2026-12-01T08:00:00Z'));
  });

  it('given the instant itself, returns null because the next fire must be strictly later', () => {
    expect(nextFireTime(schedule, ms('2026-12-01T08:00:00Z'), 'UTC')).toBeNull();
  });

  it('given nextFireTimes, returns the single instant', () => {
    expect(nextFireTimes(schedule, 0, 'UTC', 5)).toEqual([ms('2026-12-01T08:00:00Z')]);
  });
});

describe('nextFireTime for every', () => {
  const anchor = ms('2026-01-01T00:00:00Z');
  const schedule: Schedule = { kind: 'every', intervalMs: 30_000, anchorMs: anchor };

  it('given the anchor, fires one interval later', () => {
    expect(nextFireTime(schedule, anchor, 'UTC')).toBe(anchor + 30_000);
  });

  it('given a moment between fires, returns the next multiple of the interval after the anchor', () => {
    expect(nextFireTime(schedule, anchor + 95_000, 'UTC')).toBe(anchor + 120_000);
  });

  it('given a moment exactly on a fire, returns the one after it', () => {
    expect(nextFireTime(schedule, anchor + 60_000, 'UTC')).toBe(anchor + 90_000);
  });

  it('given a moment before the anchor, fires one interval after the anchor', () => {
    expect(nextFireTime(schedule, anchor - 1_000_000, 'UTC')).toBe(anchor + 30_000);
  });

  it('ignores the time zone and daylight saving entirely', () => {
    const fall = ms('2026-11-01T05:00:00Z');
    expect(
      nextFireTimes({ kind: 'every', intervalMs: 3_600_000, anchorMs: fall }, fall, 'America/New_York', 2),
    ).toEqual([fall + 3_600_000, fall + 7_200_000]);
  });
});

describe('nextFireTime for cron', () => {
  it('given "0 9 * * 1-5" in New York from 2026-03-06, fires on weekdays at 09:00 across the DST change', () => {
    expect(
      isoList(nextFireTimes(cron('0 9 * * 1-5'), ms('2026-03-06T00:00:00Z'), 'America/New_York', 5)),
    ).toEqual([
      '2026-03-06T14:00:00.000Z',
      '2026-03-09T13:00:00.000Z',
      '2026-03-10T13:00:00.000Z',
      '2026-03-11T13:00:00.000Z',
      '2026-03-12T13:00:00.000Z',
    ]);
  });

  it('given a moment exactly on a fire, returns the next one', () => {
    expect(nextFireTime(cron('0 9 * * *'), ms('2026-06-01T07:00:00Z'), 'Europe/Berlin')).toBe(
      ms('2026-06-02T07:00:00Z'),
    );
  });

  it('given a moment a millisecond before a fire, returns that fire', () => {
    expect(nextFireTime(cron('0 9 * * *'), ms('2026-06-01T06:59:59.999Z'), 'Europe/Berlin')).toBe(
      ms('2026-06-01T07:00:00Z'),
    );
  });

  it('given a leading seconds field, fires on those seconds', () => {
    expect(isoList(nextFireTimes(cron('*/20 * * * * *'), ms('2026-01-01T00:00:00Z'), 'UTC', 3))).toEqual([
      '2026-01-01T00:00:20.000Z',
      '2026-01-01T00:00:40.000Z',
      '2026-01-01T00:01:00.000Z',
    ]);
  });

  it('given @hourly, fires at the top of every hour', () => {
    expect(isoList(nextFireTimes(cron('@hourly'), ms('2026-01-01T00:30:00Z'), 'UTC', 2))).toEqual([
      '2026-01-01T01:00:00.000Z',
      '2026-01-01T02:00:00.000Z',
    ]);
  });

  it('given @weekly, fires at midnight on Sundays in the zone', () => {
    expect(nextFireTime(cron('@weekly'), ms('2026-01-01T00:00:00Z'), 'Europe/Berlin')).toBe(
      ms('2026-01-03T23:00:00Z'),
    );
  });

  it('given L in day-of-month, fires on the last day of each month', () => {
    expect(isoList(nextFireTimes(cron('0 0 L * *'), ms('2026-01-01T00:00:00Z'), 'UTC', 3))).toEqual([
      '2026-01-31T00:00:00.000Z',
      '2026-02-28T00:00:00.000Z',
      '2026-03-31T00:00:00.000Z',
    ]);
  });

  it('given 15W, fires on the weekday nearest the 15th: the Monday after a Sunday, the Friday before a Saturday', () => {
    // 2026-02-15 is a Sunday -> Monday 16th; 2026-03-15 is a Sunday -> Monday 16th; 2026-08-15 is a Saturday -> Friday 14th.
    expect(isoList(nextFireTimes(cron('0 0 15W * *'), ms('2026-02-01T00:00:00Z'), 'UTC', 2))).toEqual([
      '2026-02-16T00:00:00.000Z',
      '2026-03-16T00:00:00.000Z',
    ]);
    expect(nextFireTime(cron('0 0 15W * *'), ms('2026-08-01T00:00:00Z'), 'UTC')).toBe(
      ms('2026-08-14T00:00:00Z'),
    );
  });

  it('given 1W on a month starting on Saturday, fires on Monday the 3rd, never leaving the month', () => {
    // 2026-08-01 is a Saturday.
    expect(nextFireTime(cron('0 0 1W * *'), ms('2026-07-31T00:00:00Z'), 'UTC')).toBe(
      ms('2026-08-03T00:00:00Z'),
    );
  });

  it('given LW, fires on the last weekday of each month', () => {
    // 2026-01-31 is a Saturday, 2026-02-28 a Saturday, 2026-05-31 a Sunday.
    expect(isoList(nextFireTimes(cron('0 0 LW * *'), ms('2026-01-01T00:00:00Z'), 'UTC', 2))).toEqual([
      '2026-01-30T00:00:00.000Z',
      '2026-02-27T00:00:00.000Z',
    ]);
    expect(nextFireTime(cron('0 0 LW * *'), ms('2026-05-01T00:00:00Z'), 'UTC')).toBe(
      ms('2026-05-29T00:00:00Z'),
    );
  });

  it('given 5L in day-of-week, fires on the last Friday of each month', () => {
    expect(isoList(nextFireTimes(cron('0 0 * * 5L'), ms('2026-01-01T00:00:00Z'), 'UTC', 2))).toEqual([
      '2026-01-30T00:00:00.000Z',
      '2026-02-27T00:00:00.000Z',
    ]);
  });

  it('given 1#2 in day-of-week, fires on the second Monday of each month', () => {
    expect(isoList(nextFireTimes(cron('0 0 * * 1#2'), ms('2026-01-01T00:00:00Z'), 'UTC', 2))).toEqual([
      '2026-01-12T00:00:00.000Z',
      '2026-02-09T00:00:00.000Z',
    ]);
  });

  it('given both day-of-month and day-of-week, fires when either matches, as cron does', () => {
    // The 13th or any Friday: Fri 2 Jan, Fri 9 Jan, Tue 13 Jan.
    expect(isoList(nextFireTimes(cron('0 0 13 * 5'), ms('2026-01-01T00:00:00Z'), 'UTC', 3))).toEqual([
      '2026-01-02T00:00:00.000Z',
      '2026-01-09T00:00:00.000Z',
      '2026-01-13T00:00:00.000Z',
    ]);
  });

  it('given 29 February, waits for the next leap year', () => {
    expect(nextFireTime(cron('0 0 29 2 *'), ms('2026-01-01T00:00:00Z'), 'UTC')).toBe(
      ms('2028-02-29T00:00:00Z'),
    );
  });

  it('given a fifth Monday in February, finds the rare year it happens', () => {
    // February has a fifth Monday only in a leap year that starts the month on a Monday: 2016, then 2044.
    expect(nextFireTime(cron('0 0 * 2 1#5'), ms('2026-01-01T00:00:00Z'), 'UTC')).toBe(
      ms('2044-02-29T00:00:00Z'),
    );
  });

  it('given an unknown zone, throws UNKNOWN_TIMEZONE', () => {
    expect(() => nextFireTime(cron('0 9 * * *'), 0, 'Mars/Olympus')).toThrow(
      expect.objectContaining({ code: 'UNKNOWN_TIMEZONE' }),
    );
  });

  it('given nextFireTimes, returns strictly increasing instants, all after the start', () => {
    const start = ms('2026-03-07T00:00:00Z');
    const times = nextFireTimes(cron('*/7 * * * *'), start, 'America/New_York', 500);
    expect(times).toHaveLength(500);
    expect(times.every((time, index) => time > (index === 0 ? start : (times[index - 1] ?? Infinity)))).toBe(
      true,
    );
  });
});
