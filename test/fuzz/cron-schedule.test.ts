import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SchedError } from '../../src/core/errors.js';
import { compileCron } from '../../src/core/schedule/cron.js';
import { nextFireTimes } from '../../src/core/schedule/next.js';
import { offsetAt } from '../../src/core/schedule/timezone.js';
import { anyCronText, startInstant, validCronExpression, zone } from './support/cron-arbitraries.js';
import { wallTimeMatches } from './support/cron-reference.js';
import './support/fuzz-runs.js';

const FIRES = 6;

/** The error compileCron throws for `text`, or null when it accepts it. */
function refusal(text: string): unknown {
  try {
    compileCron(text);
    return null;
  } catch (error) {
    return error;
  }
}

describe('cron expressions, for any input', () => {
  it('given any text, then it is either accepted or refused with INVALID_SCHEDULE, never another error', () => {
    fc.assert(
      fc.property(anyCronText, (text) => {
        const error = refusal(text);
        if (error === null) return;
        expect(error).toBeInstanceOf(SchedError);
        expect((error as SchedError).code).toBe('INVALID_SCHEDULE');
        expect((error as SchedError).hint).toBeTruthy();
      }),
    );
  });

  it('given a valid expression, then sched accepts it', () => {
    fc.assert(
      fc.property(validCronExpression, (expression) => {
        expect(refusal(expression)).toBeNull();
      }),
    );
  });

  it.each(['0 9 * * 1-5,MON', '0 0 * * 0,7', '*/15,30 * * * *', '0 0 1-5,3 * *'])(
    'given a list whose items name a value twice ("%s"), then it is accepted (found by the property above)',
    (expression) => {
      expect(refusal(expression)).toBeNull();
    },
  );

  it('given "0 9 * * 1-5,MON", then it fires at 09:00 on weekdays, Monday once', () => {
    const fires = nextFireTimes(
      { kind: 'cron', expression: '0 9 * * 1-5,MON' },
      Date.UTC(2026, 0, 3),
      'UTC',
      6,
    );
    expect(fires.map((fire) => new Date(fire).toISOString())).toEqual([
      '2026-01-05T09:00:00.000Z',
      '2026-01-06T09:00:00.000Z',
      '2026-01-07T09:00:00.000Z',
      '2026-01-08T09:00:00.000Z',
      '2026-01-09T09:00:00.000Z',
      '2026-01-12T09:00:00.000Z',
    ]);
  });

  it('given a valid expression, a zone and an instant, then the next fires come after it, strictly in order', () => {
    fc.assert(
      fc.property(validCronExpression, zone, startInstant, (expression, tz, after) => {
        const fires = nextFireTimes({ kind: 'cron', expression }, after, tz, FIRES);
        expect(fires.length).toBe(FIRES);
        [after, ...fires].reduce((previous, fire) => {
          expect(fire).toBeGreaterThan(previous);
          return fire;
        });
      }),
    );
  });

  it("given a valid expression, then each fire's wall time in the zone matches every field, or it is a spring-forward jump of a fixed-time job", () => {
    fc.assert(
      fc.property(validCronExpression, zone, startInstant, (expression, tz, after) => {
        const fixedTime = !compileCron(expression).hourIsWildcard;
        for (const fire of nextFireTimes({ kind: 'cron', expression }, after, tz, FIRES)) {
          if (wallTimeMatches(expression, fire, tz)) continue;
          const clocksJumpedHere = offsetAt(tz, fire - 1) < offsetAt(tz, fire);
          expect({
            expression,
            tz,
            fire: new Date(fire).toISOString(),
            shifted: fixedTime && clocksJumpedHere,
          }).toMatchObject({ shifted: true });
        }
      }),
    );
  });

  it('given a fixed-time expression, then no wall time fires twice, even where the clocks go back', () => {
    fc.assert(
      fc.property(validCronExpression, zone, startInstant, (expression, tz, after) => {
        fc.pre(!compileCron(expression).hourIsWildcard);
        const walls = nextFireTimes({ kind: 'cron', expression }, after, tz, FIRES).map(
          (fire) => fire + offsetAt(tz, fire),
        );
        expect(new Set(walls).size).toBe(walls.length);
      }),
    );
  });
});
