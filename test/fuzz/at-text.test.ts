import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { SchedError } from '../../src/core/errors.js';
import { parseAt } from '../../src/core/schedule/at.js';
import { offsetAt } from '../../src/core/schedule/timezone.js';
import { startInstant, zone } from './support/cron-arbitraries.js';
import './support/fuzz-runs.js';

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/** A date and time as `--at` takes it, with fields that may not exist (30 February, 24:00, 23:60). */
const wallFields = fc.record({
  year: fc.integer({ min: 1970, max: 2099 }),
  month: fc.integer({ min: 0, max: 13 }),
  day: fc.integer({ min: 0, max: 32 }),
  hour: fc.integer({ min: 0, max: 25 }),
  minute: fc.integer({ min: 0, max: 61 }),
  second: fc.integer({ min: 0, max: 61 }),
  separator: fc.constantFrom('T', ' ', 't'),
});

const atText = ({
  year,
  month,
  day,
  hour,
  minute,
  second,
  separator,
}: typeof wallFields extends fc.Arbitrary<infer F> ? F : never) =>
  `${pad(year, 4)}-${pad(month)}-${pad(day)}${separator}${pad(hour)}:${pad(minute)}:${pad(second)}`;

/** Near misses of the format and anything else. */
const anyAtText = fc.oneof(
  wallFields.map(atText),
  wallFields.chain((fields) =>
    fc
      .constantFrom('Z', 'z', '+01:00', '-0930', '+24:00', '+23:60', '+1', '.5', '.1234', ' ', 'x')
      .map((suffix) => `${atText(fields)}${suffix}`),
  ),
  fc.string({ maxLength: 30 }),
  fc.constantFrom('2026-12-01', '2026-12-01T09', 'tomorrow', 'now', '', '9999-99-99T99:99'),
);

function outcome(run: () => number): { ok: true; value: number } | { ok: false; error: unknown } {
  try {
    return { ok: true, value: run() };
  } catch (error) {
    return { ok: false, error };
  }
}

/** The wall time an instant shows in the zone, as epoch ms of that reading in UTC (sched's WallTime). */
const wallOf = (zoneName: string, instant: number): number => instant + offsetAt(zoneName, instant);

describe('--at text, for any input', () => {
  it('given any text and zone, then it is an instant, or INVALID_SCHEDULE with a hint, never another error', () => {
    fc.assert(
      fc.property(anyAtText, zone, (text, tz) => {
        const parsed = outcome(() => parseAt(text, tz));
        if (parsed.ok) {
          expect(Number.isSafeInteger(parsed.value)).toBe(true);
          return;
        }
        expect(parsed.error).toBeInstanceOf(SchedError);
        expect((parsed.error as SchedError).code).toBe('INVALID_SCHEDULE');
        expect((parsed.error as SchedError).hint).toBeTruthy();
      }),
    );
  });

  it('given a local time that exists in the zone, then it is read as the first instant showing it', () => {
    fc.assert(
      fc.property(startInstant, zone, (instant, tz) => {
        const shown = DateTime.fromMillis(instant, { zone: tz });
        const read = parseAt(shown.toFormat("yyyy-MM-dd'T'HH:mm:ss.SSS"), tz);
        expect(wallOf(tz, read)).toBe(wallOf(tz, instant));
        // The same instant, or the first of two showing that reading, one fall-back earlier.
        expect(instant - read).toBeGreaterThanOrEqual(0);
        expect(instant - read).toBeLessThanOrEqual(2 * 3_600_000);
      }),
    );
  });

  it('given an instant with an offset, then the zone does not matter and it is read exactly', () => {
    fc.assert(
      fc.property(startInstant, zone, zone, (instant, writtenIn, tz) => {
        const text = DateTime.fromMillis(instant, { zone: writtenIn }).toISO({ includeOffset: true })!;
        expect(parseAt(text, tz)).toBe(instant);
      }),
    );
  });

  it('given a local time the clocks skip, then it is read as the instant of the jump', () => {
    fc.assert(
      fc.property(wallFields, zone, (fields, tz) => {
        const parsed = outcome(() => parseAt(atText(fields), tz));
        fc.pre(parsed.ok);
        const instant = (parsed as { value: number }).value;
        const written = Date.UTC(
          fields.year,
          fields.month - 1,
          fields.day,
          fields.hour,
          fields.minute,
          fields.second,
        );
        if (wallOf(tz, instant) === written) return;
        expect(offsetAt(tz, instant - 1)).toBeLessThan(offsetAt(tz, instant));
        expect(wallOf(tz, instant)).toBeGreaterThan(written);
      }),
    );
  });
});
