import { describe, expect, it } from 'vitest';
import { SchedError } from '../../src/core/errors.js';
import { parseCronFields } from '../../src/core/schedule/cron-fields.js';
import { assertCronExpression, compileCron } from '../../src/core/schedule/cron.js';

function cronError(expression: string): SchedError {
  try {
    assertCronExpression(expression);
  } catch (error) {
    if (error instanceof SchedError) return error;
    throw error;
  }
  throw new Error(`expected "${expression}" to be rejected`);
}

describe('assertCronExpression: errors name the wrong field', () => {
  it.each([
    ['61 * * * *', 'the minute field (61) must be between 0 and 59'],
    ['0 24 * * *', 'the hour field (24) must be between 0 and 23'],
    ['0 0 32 * *', 'the day-of-month field (32) must be between 1 and 31'],
    ['0 0 0 * *', 'the day-of-month field (0) must be between 1 and 31'],
    ['0 0 * 13 *', 'the month field (13) must be between 1 and 12'],
    ['0 0 * * 8', 'the day-of-week field (8) must be between 0 and 7 (0 and 7 are Sunday)'],
    ['60 0 0 * * *', 'the second field (60) must be between 0 and 59'],
  ])('given "%s", says %s', (expression, reason) => {
    const error = cronError(expression);
    expect(error.code).toBe('INVALID_SCHEDULE');
    expect(error.message).toBe(`Invalid cron expression "${expression}": ${reason}.`);
  });

  it('given an out-of-range value inside a list, names the field and the offending value', () => {
    expect(cronError('5,61 * * * *').message).toContain('the minute field (61) must be between 0 and 59');
  });

  it('given a range that leaves the field, names the field and the range', () => {
    expect(cronError('5-70 * * * *').message).toContain('the minute field (5-70) must be between 0 and 59');
  });

  it('given a backwards range, says to write the smaller value first', () => {
    expect(cronError('0 17-9 * * *').message).toContain(
      'the hour field (17-9) is a range that runs backwards',
    );
  });

  it('given a zero step, names the field and says steps start at 1', () => {
    expect(cronError('*/0 * * * *').message).toContain('the minute field (*/0) has the step "/0"');
  });

  it('given an unknown month name, says names run JAN-DEC', () => {
    expect(cronError('0 0 1 FOO *').message).toContain(
      'the month field (FOO) is not a number or a month name (JAN-DEC)',
    );
  });

  it('given a letter in a numeric field, says it is not a number', () => {
    expect(cronError('x * * * *').message).toContain('the minute field (x) is not a number');
  });

  it('given an empty list entry, names the field', () => {
    expect(cronError('1,,2 * * * *').message).toContain('the minute field (1,,2) has an empty entry');
  });

  it('given a day of month that exists in none of the months named, says so', () => {
    expect(cronError('0 0 31 4,6 *').message).toContain(
      'the day-of-month field (31) names no day that exists in the month field (4,6)',
    );
  });

  it('given the hashed H value, refuses it because sched has no stable seed for it', () => {
    expect(cronError('H * * * *').message).toContain('the minute field (H) uses H');
  });

  it('attaches a hint that shows the field order and the optional second', () => {
    expect(cronError('61 * * * *').hint).toContain(
      '"minute hour day-of-month month day-of-week", with an optional leading second field',
    );
  });

  it('puts the field and value in the details for machine readers', () => {
    expect(cronError('0 24 * * *').details).toMatchObject({
      expression: '0 24 * * *',
      field: 'hour',
      value: '24',
    });
  });
});

describe('assertCronExpression: shape of the expression', () => {
  it('given 7 fields, refuses the year field clearly', () => {
    expect(cronError('0 0 12 * * ? 2026').message).toContain(
      'it has 7 fields, and a year field is not supported',
    );
  });

  it('given 4 fields, says 5 or 6 are expected', () => {
    expect(cronError('* * * *').message).toContain(
      'it has 4 fields; expected 5, or 6 with a leading second field',
    );
  });

  it('given @reboot, says sched fires by the clock, not at boot', () => {
    expect(cronError('@reboot').message).toContain('@reboot is not supported');
  });

  it('given an unknown macro, lists the supported ones', () => {
    expect(cronError('@fortnightly').message).toContain('use @hourly, @daily, @weekly, @monthly or @yearly');
  });

  it('given a blank expression, says it is empty', () => {
    expect(cronError('   ').message).toBe('The cron expression is empty.');
  });

  it.each([
    '0 9 * * 1-5',
    '*/15 * * * *',
    '0 0 1,15 * *',
    '0 0 * JAN-MAR MON-FRI',
    '30 0 9 * * *',
    '0 0 * * 0-7',
    '5/15 * * * *',
    '0 0 ? * 1',
  ])('accepts the valid expression "%s"', (expression) => {
    expect(() => assertCronExpression(expression)).not.toThrow();
  });
});

describe('parseCronFields', () => {
  it('given 5 fields, fills the second field with 0', () => {
    expect(parseCronFields('0 9 * * 1-5')).toEqual({
      second: '0',
      minute: '0',
      hour: '9',
      dayOfMonth: '*',
      month: '*',
      dayOfWeek: '1-5',
    });
  });

  it('given 6 fields, reads the first as seconds', () => {
    expect(parseCronFields('15 0 9 * * *').second).toBe('15');
  });

  it.each([
    ['@yearly', '0 0 1 1 *'],
    ['@annually', '0 0 1 1 *'],
    ['@monthly', '0 0 1 * *'],
    ['@weekly', '0 0 * * 0'],
    ['@daily', '0 0 * * *'],
    ['@midnight', '0 0 * * *'],
    ['@hourly', '0 * * * *'],
    ['@DAILY', '0 0 * * *'],
  ])('expands the macro %s to "%s"', (macro, expanded) => {
    const fields = parseCronFields(macro);
    expect([fields.minute, fields.hour, fields.dayOfMonth, fields.month, fields.dayOfWeek].join(' ')).toBe(
      expanded,
    );
  });
});

describe('special day characters', () => {
  it.each(['0 0 L * *', '0 0 15W * *', '0 0 LW * *', '0 0 * * 5L', '0 0 * * 1#2', '0 0 * * MON#1'])(
    'accepts "%s"',
    (expression) => {
      expect(() => assertCronExpression(expression)).not.toThrow();
    },
  );

  it('refuses nW for a day that none of the months named has', () => {
    expect(cronError('0 0 30W 2 *').message).toContain(
      'the day-of-month field (30W) names no day that exists in the month field (2)',
    );
  });

  it('refuses W in a list', () => {
    expect(cronError('0 0 1W,15 * *').message).toContain(
      'the day-of-month field (1W) uses W, which must stand alone',
    );
  });

  it('refuses W combined with a day-of-week restriction', () => {
    expect(cronError('0 0 15W * 1-5').message).toContain('cannot be combined with a day-of-week');
  });

  it('refuses a week number above 5 after #', () => {
    expect(cronError('0 0 * * 1#6').message).toContain(
      'the day-of-week field (1#6) must have a week number from 1 to 5',
    );
  });

  it('refuses # in a list', () => {
    expect(cronError('0 0 * * 1,5#3').message).toContain(
      'the day-of-week field (5#3) uses #, which must stand alone',
    );
  });

  it('refuses a bare L in day-of-week', () => {
    expect(cronError('0 0 * * L').message).toContain('needs a weekday before L');
  });
});

describe('compileCron', () => {
  it('marks hours written as *, ? or */n as wildcard hours', () => {
    expect(
      ['* * * * *', '0 */2 * * *', '0 ? * * *', '@hourly'].map(
        (expression) => compileCron(expression).hourIsWildcard,
      ),
    ).toEqual([true, true, true, true]);
  });

  it('marks explicit hours, lists and ranges as fixed times', () => {
    expect(
      ['0 9 * * *', '0 0-23 * * *', '0 1,2 * * *', '@daily'].map(
        (expression) => compileCron(expression).hourIsWildcard,
      ),
    ).toEqual([false, false, false, false]);
  });

  it('walks wall times without any zone: the next match strictly after a wall time', () => {
    const cron = compileCron('30 2 * * *');
    expect(cron.nextWallTimeAfter(Date.UTC(2026, 2, 8, 2, 30))).toBe(Date.UTC(2026, 2, 9, 2, 30));
  });
});
