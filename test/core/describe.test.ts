import { describe, expect, it } from 'vitest';
import { describeSchedule } from '../../src/core/schedule/describe.js';

const cron = (expression: string) => describeSchedule({ kind: 'cron', expression }, 'Europe/Berlin');

describe('describeSchedule', () => {
  it('describes an interval compactly', () => {
    expect(describeSchedule({ kind: 'every', intervalMs: 30_000, anchorMs: 0 }, 'UTC')).toBe('every 30s');
    expect(describeSchedule({ kind: 'every', intervalMs: 5_400_000, anchorMs: 0 }, 'UTC')).toBe(
      'every 1h30m',
    );
  });

  it('describes a one-shot instant in the job zone', () => {
    expect(describeSchedule({ kind: 'at', at: Date.parse('2026-12-01T08:00:00Z') }, 'Europe/Berlin')).toBe(
      'once at 2026-12-01 09:00 Europe/Berlin',
    );
  });

  it('shows seconds of a one-shot instant only when they are not zero', () => {
    expect(describeSchedule({ kind: 'at', at: Date.parse('2026-12-01T08:00:30Z') }, 'UTC')).toBe(
      'once at 2026-12-01 08:00:30 UTC',
    );
  });

  it.each([
    ['0 9 * * 1-5', 'at 09:00 on weekdays (Europe/Berlin)'],
    ['0 9 * * MON-FRI', 'at 09:00 on weekdays (Europe/Berlin)'],
    ['30 3 * * *', 'at 03:30 every day (Europe/Berlin)'],
    ['@daily', 'at 00:00 every day (Europe/Berlin)'],
    ['0 9,17 * * *', 'at 09:00 and 17:00 every day (Europe/Berlin)'],
    ['0 10 * * 0,6', 'at 10:00 on weekends (Europe/Berlin)'],
    ['0 8 * * 1', 'at 08:00 on Mondays (Europe/Berlin)'],
    ['0 8 * * 1,3,5', 'at 08:00 on Mondays, Wednesdays and Fridays (Europe/Berlin)'],
    ['0 0 1 * *', 'at 00:00 on day 1 of the month (Europe/Berlin)'],
    ['0 0 L * *', 'at 00:00 on the last day of the month (Europe/Berlin)'],
    ['0 0 * * 5L', 'at 00:00 on the last Friday of the month (Europe/Berlin)'],
    ['0 0 * * 1#2', 'at 00:00 on the second Monday of the month (Europe/Berlin)'],
    ['0 0 1 1 *', 'at 00:00 on 1 January (Europe/Berlin)'],
    ['* * * * *', 'every minute (Europe/Berlin)'],
    ['*/5 * * * *', 'every 5 minutes (Europe/Berlin)'],
    ['@hourly', 'every hour (Europe/Berlin)'],
    ['15 * * * *', 'every hour at :15 (Europe/Berlin)'],
    ['0 */2 * * *', 'every 2 hours (Europe/Berlin)'],
    ['* * * * * *', 'every second (Europe/Berlin)'],
  ])('describes "%s" as "%s"', (expression, words) => {
    expect(cron(expression)).toBe(words);
  });

  it.each(['*/7 * * * *', '0 9-17 * * *', '0 0 15W * *', '5 0 9 * * *'])(
    'falls back to the expression for the unusual "%s"',
    (expression) => {
      expect(cron(expression)).toBe(`cron ${expression} (Europe/Berlin)`);
    },
  );
});
