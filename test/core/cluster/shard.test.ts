import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { SHARD_COUNT, shardOf } from '../../../src/core/cluster/shard.js';

/** How many of `ids` fall in each shard. */
function countPerShard(ids: readonly string[]): number[] {
  const counts = new Array<number>(SHARD_COUNT).fill(0);
  for (const id of ids) counts[shardOf(id)]! += 1;
  return counts;
}

/** Pearson's chi-squared statistic of `counts` against a uniform spread. */
function chiSquared(counts: readonly number[]): number {
  const total = counts.reduce((sum, count) => sum + count, 0);
  const expected = total / counts.length;
  return counts.reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0);
}

describe('shardOf', () => {
  it('given the same job id, returns the same shard every time', () => {
    const id = '0196f3a2-7b1c-7def-8abc-0123456789ab';
    expect(shardOf(id)).toBe(shardOf(id));
  });

  it.each([
    ['nightly', 150],
    ['0196f3a2-7b1c-7def-8abc-0123456789ab', 227],
    ['', 171],
    ['job-1', 124],
    ['job-2', 27],
  ])(
    'given the id "%s", returns shard %i in every release (a changed hash would move every job)',
    (id, shard) => {
      // Pinned from fmix32(fnv1a32(id)) >>> 24, worked out independently of this code.
      expect(shardOf(id)).toBe(shard);
    },
  );

  it('given any ids, returns a whole shard index below SHARD_COUNT', () => {
    const shards = ['', 'a', 'é', '💥', randomUUID(), 'x'.repeat(10_000)].map(shardOf);
    for (const shard of shards) {
      expect(Number.isInteger(shard)).toBe(true);
      expect(shard).toBeGreaterThanOrEqual(0);
      expect(shard).toBeLessThan(SHARD_COUNT);
    }
  });

  it.each([
    ['random (v4)', () => randomUUID()],
    // v7 ids made in one burst share their timestamp prefix and differ only in the tail.
    ['time-ordered (v7)', () => uuidv7()],
  ])('given 10k %s UUIDs, spreads them evenly over the 256 shards', (_kind, makeId) => {
    const counts = countPerShard(Array.from({ length: 10_000 }, makeId));

    // 39 expected per shard; these bands are over five standard deviations wide.
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(10);
    expect(Math.max(...counts)).toBeLessThanOrEqual(75);
    // 255 degrees of freedom: a uniform spread gives about 255 ± 23.
    expect(chiSquared(counts)).toBeLessThan(400);
  });

  it('given ids that differ only in their last character, spreads them over many shards', () => {
    const shards = new Set(Array.from({ length: 100 }, (_, index) => shardOf(`job-${index}`)));
    expect(shards.size).toBeGreaterThan(70);
  });
});
