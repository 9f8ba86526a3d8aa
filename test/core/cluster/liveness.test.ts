import { describe, expect, it } from 'vitest';
import { assignableNodes, extendStreak, liveNodes } from '../../../src/core/cluster/liveness.js';

describe('liveNodes', () => {
  const dbNow = 1_700_000_010_000;

  it('given nodes heartbeating within the window, keeps them with all their fields', () => {
    const nodes = [
      { id: 'a', heartbeatAt: dbNow - 100, labels: { region: 'eu' } },
      { id: 'b', heartbeatAt: dbNow - 5_999, labels: {} },
    ];
    expect(liveNodes(nodes, dbNow, 6_000)).toEqual(nodes);
  });

  it('given a node silent for the whole window or longer, drops it', () => {
    const nodes = [
      { id: 'fresh', heartbeatAt: dbNow - 1 },
      { id: 'exactly-dead', heartbeatAt: dbNow - 6_000 },
      { id: 'long-dead', heartbeatAt: dbNow - 60_000 },
    ];
    expect(liveNodes(nodes, dbNow, 6_000).map((node) => node.id)).toEqual(['fresh']);
  });

  it('given a heartbeat stamped after dbNow (read in another statement), counts the node alive', () => {
    expect(liveNodes([{ id: 'a', heartbeatAt: dbNow + 5 }], dbNow, 6_000)).toHaveLength(1);
  });
});

describe('extendStreak', () => {
  it('given heartbeats no further apart than the gap, keeps where the streak began', () => {
    let streak = extendStreak(undefined, 1_000, 400);
    streak = extendStreak(streak, 1_400, 400);
    expect(extendStreak(streak, 1_750, 400)).toEqual({ since: 1_000, last: 1_750 });
  });

  it('given a gap longer than allowed (a failed or stalled round), starts a new streak', () => {
    const streak = extendStreak({ since: 1_000, last: 2_000 }, 2_401, 400);
    expect(streak).toEqual({ since: 2_401, last: 2_401 });
  });

  it('given a stamp earlier than the last (the database clock stepped back), starts a new streak', () => {
    expect(extendStreak({ since: 1_000, last: 2_000 }, 1_900, 400)).toEqual({ since: 1_900, last: 1_900 });
  });
});

describe('assignableNodes', () => {
  const dbNow = 1_700_000_010_000;
  const nodes = [
    { id: 'fresh', heartbeatAt: dbNow - 100 },
    { id: 'silent-mapped', heartbeatAt: dbNow - 9_000 },
    { id: 'silent-unmapped', heartbeatAt: dbNow - 9_000 },
  ];
  const mapped = new Set(['fresh', 'silent-mapped']);

  it('given the coordinator heard for less than deadAfter, keeps the silent nodes of the current map', () => {
    const ids = assignableNodes(nodes, dbNow, 6_000, dbNow - 5_999, mapped).map((node) => node.id);
    expect(ids).toEqual(['fresh', 'silent-mapped']);
  });

  it('given the coordinator heard for deadAfter or longer, drops every silent node', () => {
    const ids = assignableNodes(nodes, dbNow, 6_000, dbNow - 6_000, mapped).map((node) => node.id);
    expect(ids).toEqual(['fresh']);
  });
});
