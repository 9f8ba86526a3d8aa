import { fnv1a32 } from '../policy/spread.js';

/**
 * A well-mixed 32-bit hash of `text`: FNV-1a followed by MurmurHash3's finalizer (fmix32). FNV-1a alone
 * leaves its high bits poorly mixed for ids that differ only in their last characters, and shards and
 * rendezvous weights both depend on every bit.
 */
export function hash32(text: string): number {
  return fmix32(fnv1a32(text));
}

function fmix32(value: number): number {
  let hash = value;
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}
