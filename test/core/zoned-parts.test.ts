import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { zonedParts } from '../../src/core/zoned-parts.js';
import { hostTimeZone, zoneAbbreviation, zoneOffset } from '../../src/cli/format/time.js';

describe('UTC without Intl', () => {
  // Etc/UTC is the same zone, read through Intl.
  it('given any instant from year 1 to 9999, when read in UTC, then the parts are the ones Intl writes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.parse('0001-01-01T00:00:00Z'), max: Date.parse('9999-12-31T23:59:59Z') }),
        (ms) => {
          expect(zonedParts(ms, 'UTC')).toEqual(zonedParts(ms, 'Etc/UTC'));
        },
      ),
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
