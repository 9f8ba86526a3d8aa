import { describe, expect, it } from 'vitest';
import { checkTimeRange, parseTimeBound } from '../../src/core/time-bound.js';

const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);

describe('parseTimeBound', () => {
  it('given a duration, when read, then it is that long before now', () => {
    expect(parseTimeBound('2h', '--since', NOW, 'UTC')).toBe(NOW - 2 * 3_600_000);
    expect(parseTimeBound('1d30m', '--since', NOW, 'UTC')).toBe(NOW - 86_400_000 - 1_800_000);
  });

  it('given an instant, a local time or a date, when read, then the local ones are in the given zone', () => {
    expect(parseTimeBound('2026-05-31T08:00Z', '--since', NOW, 'Europe/Berlin')).toBe(
      Date.UTC(2026, 4, 31, 8),
    );
    expect(parseTimeBound('2026-05-31 08:00', '--since', NOW, 'Europe/Berlin')).toBe(
      Date.UTC(2026, 4, 31, 6),
    );
    expect(parseTimeBound('2026-05-31', '--until', NOW, 'Europe/Berlin')).toBe(Date.UTC(2026, 4, 30, 22));
  });

  it('given text that is neither, when read, then VALIDATION_FAILED names the flag and the forms it takes', () => {
    expect(() => parseTimeBound('yesterday', '--until', NOW, 'UTC')).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        message: 'Invalid --until "yesterday": it is neither a time nor a duration.',
        hint: expect.stringMatching(/30m, 2h or 7d.*2026-12-01/),
      }),
    );
  });
});

describe('checkTimeRange', () => {
  it('given an end before the start, when checked, then it is refused; an open or equal range passes', () => {
    expect(() => checkTimeRange(NOW, NOW - 1)).toThrow(/--until is before --since/);
    expect(() => checkTimeRange(NOW, NOW)).not.toThrow();
    expect(() => checkTimeRange(undefined, NOW)).not.toThrow();
    expect(() => checkTimeRange(NOW, undefined)).not.toThrow();
  });
});
