import { describe, expect, it } from 'vitest';
import { LeaseHolder, ShardLeases } from '../../../src/core/consensus/shard-leases.js';

const bounds = { durationMs: 10_000, maxDrift: 0.05 };

describe('shard leases', () => {
  it('Given a grant applied at t, then a renewal by its holder may be proposed at once and a move only from t + D(1 + ρ)', () => {
    const leases = new ShardLeases(bounds, 0);
    expect(leases.mayGrant(1, 'a', 10_500)).toBe(true);
    leases.apply({ shard: 1, holder: 'a', index: 7, ask: 'x' }, 20_000);

    expect(leases.mayGrant(1, 'a', 20_001)).toBe(true);
    expect(leases.mayGrant(1, 'b', 20_000 + 10_499)).toBe(false);
    expect(leases.mayGrant(1, 'b', 20_000 + 10_500)).toBe(true);
  });

  it('Given a node just started, then it moves no shard for a whole lease, whatever it applied', () => {
    const leases = new ShardLeases(bounds, 1_000);
    expect(leases.mayGrant(3, 'b', 1_000 + 10_499)).toBe(false);
    expect(leases.mayGrant(3, 'b', 1_000 + 10_500)).toBe(true);
  });

  it('Given a grant proposed and not applied yet, then no other grant of that shard is proposed, not even a renewal, until it is applied or abandoned', () => {
    const leases = new ShardLeases(bounds, -100_000);
    leases.apply({ shard: 1, holder: 'a', index: 1, ask: 'x' }, -50_000);
    leases.proposed(1);
    expect(leases.mayGrant(1, 'a', 0)).toBe(false);
    expect(leases.mayGrant(2, 'a', 0)).toBe(true);

    leases.abandonProposals();
    expect(leases.mayGrant(1, 'a', 0)).toBe(true);
    leases.proposed(1);
    leases.apply({ shard: 1, holder: 'b', index: 2, ask: 'y' }, 0);
    expect(leases.mayGrant(1, 'b', 1)).toBe(true);
  });

  it('Given a holder, then it acts from its own ask for D(1 - ρ) under the grant index as fence, not on grants to others, and not on asks of an earlier life', () => {
    const holder = new LeaseHolder('a', 'life-2', bounds);
    const ask = holder.ask(5_000);
    holder.apply({ shard: 1, holder: 'a', index: 9, ask });

    expect(holder.fenceFor(1, 5_000 + 9_499)).toBe(9);
    expect(holder.fenceFor(1, 5_000 + 9_500)).toBeNull();
    expect(holder.fenceFor(2, 5_000)).toBeNull();

    holder.apply({ shard: 1, holder: 'b', index: 10, ask: 'b-ask' });
    expect(holder.fenceFor(1, 5_001)).toBeNull();
    holder.apply({ shard: 1, holder: 'a', index: 11, ask: 'life-1:0' });
    expect(holder.fenceFor(1, 5_001)).toBeNull();
  });
});
