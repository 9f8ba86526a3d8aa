import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/core/duration.js';
import { SchedError } from '../../src/core/errors.js';
import { MAX_TIMER_MS, parseBoundedDuration } from '../../src/core/normalize-duration.js';
import { parseEvery } from '../../src/core/schedule/every.js';
import './support/fuzz-runs.js';

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
type Unit = keyof typeof UNIT_MS;

/** Text made of duration parts, often well formed, sometimes with junk, signs, spaces or huge numbers. */
const durationText: fc.Arbitrary<string> = fc.oneof(
  fc
    .array(
      fc.tuple(
        fc.oneof(fc.nat({ max: 10_000 }).map(String), fc.stringMatching(/^\d{1,400}(\.\d{1,5})?$/)),
        fc.constantFrom<Unit | string>('ms', 's', 'm', 'h', 'd', 'w', '', 'y', 'S', ' s'),
      ),
      { maxLength: 4 },
    )
    .map((parts) => parts.map(([amount, unit]) => `${amount}${unit}`).join('')),
  fc.string({ maxLength: 12 }),
  fc.constantFrom(
    '-5s',
    '+5s',
    '1e3s',
    ' 5m ',
    '5m 3s',
    '.5s',
    '5.s',
    'Infinity',
    'NaN',
    '0',
    '0s',
    '\u0665s',
  ),
);

/** What a rejected value must be: a SchedError with the code and a hint, never a TypeError or RangeError. */
function expectRefusal(run: () => unknown, code: SchedError['code']): void {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(SchedError);
  expect((thrown as SchedError).code).toBe(code);
  expect((thrown as SchedError).hint).toBeTruthy();
}

function outcome<T>(run: () => T): { ok: true; value: T } | { ok: false } {
  try {
    return { ok: true, value: run() };
  } catch {
    return { ok: false };
  }
}

describe('duration text, for any input', () => {
  it('given any text, then parseDuration gives a whole, finite, non-negative number of ms or VALIDATION_FAILED', () => {
    fc.assert(
      fc.property(durationText, (text) => {
        const parsed = outcome(() => parseDuration(text));
        if (!parsed.ok) return expectRefusal(() => parseDuration(text), 'VALIDATION_FAILED');
        expect(Number.isInteger(parsed.value)).toBe(true);
        expect(parsed.value).toBeGreaterThanOrEqual(0);
      }),
    );
  });

  it('given parts in any units, then parseDuration sums them', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: 1_000 }), fc.constantFrom<Unit>('ms', 's', 'm', 'h', 'd', 'w')), {
          minLength: 1,
          maxLength: 5,
        }),
        (parts) => {
          const text = parts.map(([amount, unit]) => `${amount}${unit}`).join('');
          const sum = parts.reduce((total, [amount, unit]) => total + amount * UNIT_MS[unit], 0);
          expect(parseDuration(text)).toBe(sum);
        },
      ),
    );
  });

  it('given a whole number of seconds, or less than a second, then formatDuration gives text that parses back to it', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.nat({ max: 999 }),
          fc.nat({ max: 10 * 365 * 86_400 }).map((seconds) => seconds * 1_000),
        ),
        (ms) => {
          expect(parseDuration(formatDuration(ms))).toBe(ms);
        },
      ),
    );
  });

  it('given any text, then --every gives an interval from 1s to ten years, or INVALID_SCHEDULE', () => {
    fc.assert(
      fc.property(durationText, (text) => {
        const parsed = outcome(() => parseEvery(text));
        if (!parsed.ok) return expectRefusal(() => parseEvery(text), 'INVALID_SCHEDULE');
        expect(parsed.value).toBeGreaterThanOrEqual(1_000);
        expect(parsed.value).toBeLessThanOrEqual(3_650 * 86_400_000);
      }),
    );
  });

  it('given any text, then a bounded duration (timeout, backoff) stays within what a timer can wait, or VALIDATION_FAILED', () => {
    fc.assert(
      fc.property(durationText, fc.boolean(), (text, allowZero) => {
        const rule = { label: 'Timeout', allowZero, hint: 'Give a shorter one.' };
        const parsed = outcome(() => parseBoundedDuration(text, rule));
        if (!parsed.ok) return expectRefusal(() => parseBoundedDuration(text, rule), 'VALIDATION_FAILED');
        expect(parsed.value).toBeLessThanOrEqual(MAX_TIMER_MS);
        expect(parsed.value).toBeGreaterThanOrEqual(allowZero ? 0 : 1);
      }),
    );
  });
});
