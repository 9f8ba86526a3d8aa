import { describe, expect, it } from 'vitest';
import { SchedError } from '../../src/core/errors.js';
import { parseAt, parseTimeOrDate } from '../../src/core/schedule/at.js';

function atError(text: string, timezone = 'Europe/Berlin', parse = parseAt): SchedError {
  try {
    parse(text, timezone);
  } catch (error) {
    if (error instanceof SchedError) return error;
    throw error;
  }
  throw new Error(`expected "${text}" to be rejected`);
}

describe('parseAt with an offset or Z', () => {
  it('given an offset, returns that instant whatever the job zone', () => {
    expect(parseAt('2026-12-01T09:00:00+01:00', 'America/New_York')).toBe(Date.parse('2026-12-01T08:00:00Z'));
  });

  it('given Z and no seconds, returns the UTC instant', () => {
    expect(parseAt('2026-12-01T08:00Z', 'Asia/Kathmandu')).toBe(Date.parse('2026-12-01T08:00:00Z'));
  });

  it('given a negative offset without a colon, returns the instant', () => {
    expect(parseAt('2026-12-01T03:00-0500', 'UTC')).toBe(Date.parse('2026-12-01T08:00:00Z'));
  });

  it('given milliseconds, keeps them', () => {
    expect(parseAt('2026-12-01T08:00:00.250Z', 'UTC')).toBe(Date.parse('2026-12-01T08:00:00.250Z'));
  });
});

describe('parseAt with a local date-time', () => {
  it('given "2026-12-01T09:00", reads it in the job zone', () => {
    expect(parseAt('2026-12-01T09:00', 'Europe/Berlin')).toBe(Date.parse('2026-12-01T08:00:00Z'));
  });

  it('given a space instead of T and seconds, reads it in the job zone', () => {
    expect(parseAt('2026-12-01 09:00:30', 'Europe/Berlin')).toBe(Date.parse('2026-12-01T08:00:30Z'));
  });

  it('given a time in Kathmandu, applies the +05:45 offset exactly', () => {
    expect(parseAt('2026-12-01 09:00', 'Asia/Kathmandu')).toBe(Date.parse('2026-12-01T03:15:00Z'));
  });

  it('given a time the clocks skip, returns the instant of the jump', () => {
    expect(parseAt('2026-03-08 02:30', 'America/New_York')).toBe(Date.parse('2026-03-08T07:00:00Z'));
  });

  it('given a time the clocks repeat, returns its first occurrence', () => {
    expect(parseAt('2026-11-01 01:30', 'America/New_York')).toBe(Date.parse('2026-11-01T05:30:00Z'));
  });

  it('given surrounding spaces, ignores them', () => {
    expect(parseAt('  2026-12-01T09:00  ', 'UTC')).toBe(Date.parse('2026-12-01T09:00:00Z'));
  });

  it('given an unknown zone, throws UNKNOWN_TIMEZONE', () => {
    expect(atError('2026-12-01T09:00', 'Mars/Olympus').code).toBe('UNKNOWN_TIMEZONE');
  });
});

describe('parseAt refusals', () => {
  it.each(['tomorrow', '2026-12-01', '09:00', '2026/12/01 09:00', '1733040000000', '2026-12-01T9:00', ''])(
    'given "%s", throws INVALID_SCHEDULE',
    (text) => {
      const error = atError(text);
      expect(error.code).toBe('INVALID_SCHEDULE');
      expect(error.message).toBe(`Invalid time "${text}": it is not a date and time.`);
    },
  );

  it('shows the accepted forms in the hint', () => {
    expect(atError('tomorrow').hint).toContain('2026-12-01T09:00:00+01:00');
    expect(atError('tomorrow').hint).toContain('2026-12-01T09:00');
  });

  it.each([
    '2026-02-30T09:00',
    '2026-13-01T09:00',
    '2026-12-01T24:00',
    '2026-12-01T09:60',
    '2026-12-01T09:00:60',
  ])('given the impossible "%s", says there is no such date or time', (text) => {
    expect(atError(text).message).toContain('no such date or time of day');
  });

  it('given an offset beyond 23:59, says the offset is out of range', () => {
    expect(atError('2026-12-01T09:00+25:00').message).toContain('the offset +25:00 is out of range');
  });
});

describe('parseTimeOrDate, for --from, --to and why --at', () => {
  it('given a bare date, returns the local midnight that starts it in the zone', () => {
    expect(parseTimeOrDate('2026-11-28', 'Europe/Berlin')).toBe(Date.parse('2026-11-27T23:00:00Z'));
  });

  it('given a bare date whose midnight the clocks skip, returns the instant of the jump', () => {
    // Chile springs forward at midnight: 2026-09-06 00:00 does not exist in Santiago.
    expect(parseTimeOrDate('2026-09-06', 'America/Santiago')).toBe(Date.parse('2026-09-06T04:00:00Z'));
  });

  it('given a date and time, reads it as parseAt does', () => {
    expect(parseTimeOrDate('2026-11-28T09:30', 'UTC')).toBe(Date.parse('2026-11-28T09:30:00Z'));
  });

  it('given an impossible bare date, says there is no such date, quoting what was written', () => {
    expect(atError('2026-02-30', 'UTC', parseTimeOrDate).message).toBe(
      'Invalid time "2026-02-30": no such date.',
    );
  });
});
