import { describe, expect, it } from 'vitest';
import { memberLeaseExpired, memberSurelyStopped } from '../../../src/core/cluster/member-lease.js';

const bounds = { durationMs: 5_000, stopMs: 3_000, maxDrift: 0.05 };

describe('member leases: the member stops first, by its clock; the leader waits longer, by its own', () => {
  it('Given a member, then its lease runs out at the duration less the drift', () => {
    expect(memberLeaseExpired(4_749, bounds)).toBe(false);
    expect(memberLeaseExpired(4_750, bounds)).toBe(true);
  });

  it('Given the leader, then it may drop a member only after the duration and the stop time, plus the drift', () => {
    expect(memberSurelyStopped(8_399, bounds)).toBe(false);
    expect(memberSurelyStopped(8_400, bounds)).toBe(true);
  });

  it('Given the worst drift both ways, then the member’s runs are gone before the leader may drop it', () => {
    // Member's clock slow (real time runs 1/(1 - ρ) per tick of it), leader's fast: the tightest case.
    const memberStopsByReal =
      (bounds.durationMs * (1 - bounds.maxDrift)) / (1 - bounds.maxDrift) + bounds.stopMs;
    const leaderDropsAtReal =
      ((bounds.durationMs + bounds.stopMs) * (1 + bounds.maxDrift)) / (1 + bounds.maxDrift);
    expect(memberStopsByReal).toBeLessThanOrEqual(leaderDropsAtReal);
  });
});
