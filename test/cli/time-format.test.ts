import { describe, expect, it } from 'vitest';
import {
  formatInstant,
  formatInstantWithRelative,
  formatLocalIso,
  formatRelative,
  formatUtc,
  zoneAbbreviation,
  zoneOffset,
} from '../../src/cli/format/time.js';
import { formatFireTime } from '../../src/cli/format/fire-time.js';

const WINTER = Date.UTC(2026, 11, 1, 8, 0, 0); // 2026-12-01T08:00:00Z
const SUMMER = Date.UTC(2026, 6, 1, 8, 0, 0);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('formatInstant', () => {
  it('given a winter instant in Berlin, when formatted, then it shows local wall time and CET', () => {
    expect(formatInstant(WINTER, 'Europe/Berlin')).toBe('2026-12-01 09:00:00 CET');
  });

  it('given a summer instant in Berlin, when formatted, then it shows CEST', () => {
    expect(formatInstant(SUMMER, 'Europe/Berlin')).toBe('2026-07-01 10:00:00 CEST');
  });

  it('given a New York instant, when formatted, then it uses the US abbreviation', () => {
    expect(formatInstant(WINTER, 'America/New_York')).toBe('2026-12-01 03:00:00 EST');
  });

  it('given a zone without a common abbreviation, when formatted, then it shows the offset', () => {
    expect(formatInstant(WINTER, 'Asia/Kolkata')).toBe('2026-12-01 13:30:00 +05:30');
  });

  it('given midnight, when formatted, then the hour is 00 rather than 24', () => {
    expect(formatInstant(Date.UTC(2026, 0, 1, 0, 0, 0), 'UTC')).toBe('2026-01-01 00:00:00 UTC');
  });
});

describe('zone offsets and ISO forms', () => {
  it('given New York in winter and summer, when asked for the offset, then it follows DST', () => {
    expect(zoneOffset(WINTER, 'America/New_York')).toBe('-05:00');
    expect(zoneOffset(SUMMER, 'America/New_York')).toBe('-04:00');
  });

  it('given UTC, when asked for the offset, then it is +00:00', () => {
    expect(zoneOffset(WINTER, 'UTC')).toBe('+00:00');
  });

  it('given an instant, when written as local ISO, then it carries the offset', () => {
    expect(formatLocalIso(WINTER, 'America/New_York')).toBe('2026-12-01T03:00:00-05:00');
  });

  it('given an instant without milliseconds, when written in UTC, then the .000 is dropped', () => {
    expect(formatUtc(WINTER)).toBe('2026-12-01T08:00:00Z');
  });

  it('given Sydney in December, when abbreviated, then it is the offset of daylight time', () => {
    expect(zoneAbbreviation(WINTER, 'Australia/Sydney')).toBe('+11:00');
  });
});

describe('formatRelative', () => {
  const now = WINTER;

  it('given an instant 4 minutes ahead, when described, then it reads "in 4m"', () => {
    expect(formatRelative(now + 4 * MINUTE + 20_000, now)).toBe('in 4m');
  });

  it('given an instant 3 hours back, when described, then it reads "3h ago"', () => {
    expect(formatRelative(now - 3 * HOUR, now)).toBe('3h ago');
  });

  it('given 5h 2m ahead, when described, then it shows the two largest units', () => {
    expect(formatRelative(now + 5 * HOUR + 2 * MINUTE + 59_000, now)).toBe('in 5h 2m');
  });

  it('given less than a minute ahead, when described, then it shows seconds', () => {
    expect(formatRelative(now + 42_000, now)).toBe('in 42s');
  });

  it('given several days ahead with no whole hours, when described, then the zero unit is dropped', () => {
    expect(formatRelative(now + 2 * 24 * HOUR + 30 * MINUTE, now)).toBe('in 2d');
  });

  it('given the same instant, when described, then it reads "now"', () => {
    expect(formatRelative(now + 400, now)).toBe('now');
  });

  it('given a viewer, when formatted with the relative hint, then both appear', () => {
    expect(formatInstantWithRelative(now + 5 * HOUR + 2 * MINUTE, { zone: 'Europe/Berlin', now })).toBe(
      '2026-12-01 14:02:00 CET (in 5h 2m)',
    );
  });
});

describe('formatFireTime', () => {
  it('given a fire time in New York, when formatted, then it shows weekday, wall time, offset and UTC', () => {
    expect(formatFireTime(Date.UTC(2026, 2, 6, 14, 0), 'America/New_York')).toBe(
      'Fri 2026-03-06 09:00 EST (-05:00)  2026-03-06T14:00:00Z',
    );
  });

  it('given a fire time with seconds, when formatted, then the seconds are shown', () => {
    expect(formatFireTime(Date.UTC(2026, 2, 6, 14, 0, 30), 'UTC')).toBe(
      'Fri 2026-03-06 14:00:30 UTC (+00:00)  2026-03-06T14:00:30Z',
    );
  });
});
