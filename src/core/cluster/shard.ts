import { hash32 } from './hash.js';

/** Jobs are split into this many virtual shards; nodes own shards, never single jobs. */
export const SHARD_COUNT = 256;

/** The shard a job belongs to, the same on every node and in every release. */
export function shardOf(jobId: string): number {
  // The high bits pick the shard (a fraction of the hash range) rather than `hash % SHARD_COUNT`.
  return Math.floor((hash32(jobId) / 2 ** 32) * SHARD_COUNT);
}
