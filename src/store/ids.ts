import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';

const POOL_IDS = 256;
const pool = Buffer.alloc(16 * POOL_IDS);
let nextInPool = POOL_IDS;
const clock = { msecs: -Infinity, seq: 0 };

/**
 * The ids that start with `prefix` are those in [from, to): ids are ASCII and compared byte by byte
 * (SQLite's BINARY, PostgreSQL's "C" collation), so the range is served by the primary key's index.
 */
export function idPrefixRange(prefix: string): { from: string; to: string } {
  return { from: prefix, to: `${prefix}\u007f` };
}

/**
 * A UUIDv7: time-ordered, so ids sort by creation and index inserts stay at the right edge. Ids made in
 * the same millisecond count up (as uuid's own v7 does), so they sort in the order they were made.
 * The random bytes come from a pool filled 4 KiB at a time: one getRandomValues call per id was 6% of
 * a create.
 */
export function newId(): string {
  if (nextInPool === POOL_IDS) {
    randomFillSync(pool);
    nextInPool = 0;
  }
  const random = pool.subarray(nextInPool * 16, nextInPool * 16 + 16);
  nextInPool += 1;
  const now = Date.now();
  if (now > clock.msecs) {
    clock.msecs = now;
    // Start each millisecond low in the 31-bit space, leaving room to count up.
    clock.seq = random.readUInt32BE(6) & 0x3fffffff;
  } else {
    clock.seq = (clock.seq + 1) | 0;
    if (clock.seq === 0) clock.msecs += 1;
  }
  return v7({ msecs: clock.msecs, seq: clock.seq, random });
}
