import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { zonedParts } from '../../src/core/zoned-parts.js';
import { hostTimeZone, zoneAbbreviation, zoneOffset } from '../../src/cli/format/time.js';

const intlUtcParts = new Intl.DateTimeFormat('en-US', {
  timeZone: 'UTC',
  hourCycle: 'h23',
  weekday: 'short',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

function partsByIntl(ms: number): Record<string, string> {
  const parts: Record<string, string> = {};
  for (const part of intlUtcParts.formatToParts(ms))
    if (part.type !== 'literal') parts[part.type] = part.value;
  return parts;
}

describe('UTC without Intl', () => {
  it('given any instant from year 1 to 9999, when read in UTC, then the parts are the ones Intl writes', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1, 0, 1), max: Date.UTC(9999, 11, 31, 23, 59, 59) }), (ms) => {
        expect(zonedParts(ms, 'UTC')).toEqual(partsByIntl(ms));
      }),
      { numRuns: 2000 },
    );
  });

  it('given UTC, when its name and offset are asked, then they are the ones Intl gives', () => {
    const at = Date.UTC(2026, 6, 1);
    const name = (style: 'short' | 'longOffset') =>
      new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', timeZoneName: style })
        .formatToParts(at)
        .find((part) => part.type === 'timeZoneName')?.value;
    expect(zoneAbbreviation(at, 'UTC')).toBe(name('short'));
    expect(zoneOffset(at, 'UTC')).toBe(name('longOffset')?.replace(/^GMT/, ''));
  });

  it('given this host, when its zone is asked, then it is the one Intl resolves', () => {
    expect(hostTimeZone()).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });
});
