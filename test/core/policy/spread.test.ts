import { describe, expect, it } from 'vitest';
import { fnv1a32, jitterMs, plannedFireTime, spreadOffsetMs } from '../../../src/core/policy/spread.js';

const HOUR = 3_600_000;
const ALMOST_ONE = 1 - Number.EPSILON / 2;

describe('fnv1a32', () => {
  it.each([
    ['', 0x811c9dc5],
    ['a', 0xe40c292c],
    ['foobar', 0xbf9cf968],
  ])('given "%s", matches the published FNV-1a test vector', (text, expected) => {
    expect(fnv1a32(text)).toBe(expected);
  });

  it('given non-ASCII text, hashes its UTF-8 bytes', () => {
    // "é" is C3 A9 in UTF-8; hashing those two bytes by hand gives the same value.
    const byHand = Math.imul(Math.imul(0x811c9dc5 ^ 0xc3, 0x01000193) ^ 0xa9, 0x01000193) >>> 0;
    expect(fnv1a32('é')).toBe(byHand);
  });
});

describe('spreadOffsetMs', () => {
  const id = '0196f3a2-7b1c-7def-8abc-0123456789ab';

  it('given the same job and spread, returns the same offset every time', () => {
    expect(spreadOffsetMs(id, HOUR)).toBe(spreadOffsetMs(id, HOUR));
  });

  it('given the job "nightly" and a 1h spread, offsets it by 35m21.6s on every node and every release', () => {
    // Pinned: a change to the hash would move every spread job, so it must show up in review.
    expect(spreadOffsetMs('nightly', HOUR)).toBe(2_121_600);
  });

  it('given a spread of 2^32 ms, the offset is FNV-1a followed by the MurmurHash3 finalizer', () => {
    expect(spreadOffsetMs('nightly', 2 ** 32)).toBe(fnv1a32Mixed('nightly'));
  });

  it('given many jobs, keeps every offset in [0, spread)', () => {
    for (let i = 0; i < 2_000; i++) {
      const offset = spreadOffsetMs(`job-${i}`, 1_000);
      expect(offset).toBeGreaterThanOrEqual(0);
      expect(offset).toBeLessThan(1_000);
    }
  });

  it('given ids that differ only in their last character, spreads them across the window', () => {
    const buckets = new Array<number>(10).fill(0);
    for (let i = 0; i < 1_000; i++) {
      const bucket = Math.floor(spreadOffsetMs(`job-${i}`, 10 * HOUR) / HOUR);
      buckets[bucket] = (buckets[bucket] ?? 0) + 1;
    }
    for (const count of buckets) expect(count).toBeGreaterThan(60);
  });

  it('given different jobs, gives them different offsets', () => {
    expect(new Set(['a', 'b', 'c', 'd', 'e'].map((job) => spreadOffsetMs(job, HOUR))).size).toBe(5);
  });

  it('given a larger spread, keeps the job at the same relative place in the window', () => {
    const small = spreadOffsetMs(id, HOUR) / HOUR;
    const large = spreadOffsetMs(id, 24 * HOUR) / (24 * HOUR);
    expect(Math.abs(small - large)).toBeLessThan(0.001);
  });

  it.each([0, -5, Number.NaN])('given a spread of %s, returns 0', (spread) => {
    expect(spreadOffsetMs(id, spread)).toBe(0);
  });
});

/** The documented hash, written out independently of spread.ts. */
function fnv1a32Mixed(text: string): number {
  let hash = fnv1a32(text);
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}

describe('jitterMs', () => {
  it('given a random value of 0, adds no delay', () => {
    expect(jitterMs(5_000, () => 0)).toBe(0);
  });

  it('given a random value just under 1, adds the whole maximum', () => {
    expect(jitterMs(5_000, () => ALMOST_ONE)).toBe(5_000);
  });

  it('given a random source that returns exactly 1, stays at the maximum', () => {
    expect(jitterMs(5_000, () => 1)).toBe(5_000);
  });

  it('given a random value of one half, adds about half the maximum', () => {
    expect(jitterMs(5_000, () => 0.5)).toBe(2_500);
  });

  it('given no jitter, never draws a random number', () => {
    expect(
      jitterMs(0, () => {
        throw new Error('random must not be called');
      }),
    ).toBe(0);
  });
});

describe('plannedFireTime', () => {
  it('given an instant, a spread and a drawn jitter, adds both to the instant', () => {
    const instant = Date.parse('2026-06-01T03:00:00Z');
    expect(plannedFireTime(instant, 'nightly', HOUR, 1_234)).toBe(
      instant + spreadOffsetMs('nightly', HOUR) + 1_234,
    );
  });

  it('given no spread and no jitter, fires at the instant itself', () => {
    expect(plannedFireTime(1_000, 'nightly', 0, 0)).toBe(1_000);
  });
});
