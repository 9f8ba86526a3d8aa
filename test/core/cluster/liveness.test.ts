import { describe, expect, it } from 'vitest';
import { liveNodes } from '../../../src/core/cluster/liveness.js';

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
