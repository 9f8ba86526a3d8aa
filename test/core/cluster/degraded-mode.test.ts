import { describe, expect, it } from 'vitest';
import {
  degradedNotice,
  fellDueInOutage,
  minorityReadNotice,
  staleReadNotice,
} from '../../../src/core/cluster/degraded-mode.js';

const t0 = Date.parse('2026-06-01T12:00:00Z');

describe('degradedNotice', () => {
  it('says for how long the store has been unreachable, in whole seconds, and what the node does meanwhile', () => {
    expect(degradedNotice(t0, t0 + 45_600)).toBe(
      'degraded: store unreachable for 45s, firing every-host jobs from the local copy',
    );
  });

  it('given an outage noticed this instant, says one second rather than nothing', () => {
    expect(degradedNotice(t0, t0)).toBe(
      'degraded: store unreachable for 1s, firing every-host jobs from the local copy',
    );
  });

  it('given a long outage, uses minutes', () => {
    expect(degradedNotice(t0, t0 + 125_000)).toContain('store unreachable for 2m5s,');
  });

  it('given a peer without a majority, says so, and that its writes are refused', () => {
    expect(degradedNotice(t0, t0 + 45_600, 'quorum')).toBe(
      'degraded: no majority of the voters reachable for 45s, firing every-host jobs on its own; writes are refused (NO_QUORUM)',
    );
  });
});

describe('minorityReadNotice', () => {
  it('says for how long the node has reached no majority, and that its copy may be stale', () => {
    expect(minorityReadNotice(t0, t0 + 90_000)).toBe(
      "this node has reached no majority of the voters for 1m30s: this is its own copy of the cluster's jobs, which may be stale",
    );
  });
});

describe('fellDueInOutage', () => {
  const outages = [{ since: t0, until: t0 + 20_000 }];

  it('given an instant inside an outage, says it fell due in it', () => {
    expect(fellDueInOutage(t0 + 5_000, outages, 2_000)).toBe(true);
  });

  it('given an instant just before the outage was noticed (its fire was the call that failed), counts it', () => {
    expect(fellDueInOutage(t0 - 1_500, outages, 2_000)).toBe(true);
  });

  it('given an instant well before or after the outage, does not', () => {
    expect(fellDueInOutage(t0 - 10_000, outages, 2_000)).toBe(false);
    expect(fellDueInOutage(t0 + 20_001, outages, 2_000)).toBe(false);
  });

  it('given an outage still going on, counts every instant since it began', () => {
    expect(fellDueInOutage(t0 + 3_600_000, [{ since: t0, until: null }], 2_000)).toBe(true);
  });

  it('given no outage, never', () => {
    expect(fellDueInOutage(t0, [], 2_000)).toBe(false);
  });
});

describe('staleReadNotice', () => {
  it('says the answer comes from the local copy, how old it is, and that it may be stale', () => {
    expect(staleReadNotice(t0, t0 + 90_000)).toBe(
      "the store cannot be reached: this is this node's local copy of the job definitions (last refreshed 1m30s ago), which may be stale",
    );
  });

  it('given a copy never refreshed, says so', () => {
    expect(staleReadNotice(null, t0)).toContain('(never refreshed)');
  });
});
