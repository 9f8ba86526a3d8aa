import { describe, expect, it } from 'vitest';
import { writePacing } from '../../src/daemon/store-target.js';
import { GATHER_WRITES_MS, REPLICA_COMMIT_SPACING } from '../../src/store/sqlite/group-commit.js';

describe('how a daemon’s SQLite store paces its commits', () => {
  it('Given a peer’s replica, then its commits are spaced and its writes gather no company', () => {
    expect(writePacing('replica')).toEqual({ spacing: REPLICA_COMMIT_SPACING });
  });

  it('Given the daemon’s own store, durable or relaxed, then its writes gather company and are not spaced', () => {
    for (const durability of ['full', 'relaxed'] as const)
      expect(writePacing(durability)).toEqual({ maxGatherMs: GATHER_WRITES_MS });
  });
});
