import { describe, expect, it } from 'vitest';
import { parseEvery } from '../../src/core/schedule/every.js';

describe('parseEvery', () => {
  it.each([
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['2d', 172_800_000],
    ['1s', 1_000],
  ])('given "%s", returns %i ms', (text, intervalMs) => {
    expect(parseEvery(text)).toBe(intervalMs);
  });

  it('given less than a second, refuses it and names the minimum', () => {
    expect(() => parseEvery('500ms')).toThrow(
      expect.objectContaining({
        code: 'INVALID_SCHEDULE',
        message: 'Interval "500ms" is too short; the shortest is 1s.',
      }),
    );
  });

  it('given zero, refuses it as too short', () => {
    expect(() => parseEvery('0s')).toThrow(expect.objectContaining({ code: 'INVALID_SCHEDULE' }));
  });

  it('given text that is not a duration, throws INVALID_SCHEDULE with examples in the hint', () => {
    expect(() => parseEvery('often')).toThrow(
      expect.objectContaining({
        code: 'INVALID_SCHEDULE',
        message: 'Invalid interval "often".',
        hint: expect.stringContaining('30s'),
      }),
    );
  });

  it('given more than ten years, refuses it and points to cron', () => {
    expect(() => parseEvery('9999w')).toThrow(
      expect.objectContaining({ code: 'INVALID_SCHEDULE', hint: expect.stringContaining('cron') }),
    );
  });
});
