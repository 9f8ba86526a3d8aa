import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import {
  describeCoordinator,
  describeFiringLag,
  describeUnassigned,
  formatAge,
  orderNodes,
  renderClusterStatus,
  renderNodeTable,
  shortNodeId,
} from '../../src/cli/format/cluster-status.js';
import { COORDINATOR_ID, DEAD_ID, federated, SELF_ID, single, WORKER_ID } from '../tui/cluster-fixtures.js';

const plain = new Chalk({ level: 0 });

describe('shortNodeId', () => {
  it('given a UUID node id, when shortened, then its first block is left', () => {
    expect(shortNodeId(SELF_ID)).toBe('3f2a9c1e');
  });

  it('given a node id that is not a UUID, when shortened, then it is kept whole', () => {
    expect(shortNodeId('build-01')).toBe('build-01');
  });
});

describe('formatAge', () => {
  it('given ages under ten seconds, when formatted, then they show tenths of a second', () => {
    expect(formatAge(400)).toBe('0.4s ago');
    expect(formatAge(0)).toBe('0.0s ago');
    expect(formatAge(9_999)).toBe('9.9s ago');
  });

  it('given longer ages, when formatted, then they read like other relative times', () => {
    expect(formatAge(12_300)).toBe('12s ago');
    expect(formatAge(150_000)).toBe('2m ago');
  });

  it('given a heartbeat ahead of the clock it is measured against, when formatted, then it reads as just now', () => {
    expect(formatAge(-250)).toBe('0.0s ago');
  });
});

describe('orderNodes', () => {
  it('given nodes in any order, when ordered, then the coordinator comes first, then live nodes by host, then dead ones', () => {
    expect(orderNodes(federated.nodes).map((node) => node.id)).toEqual([
      COORDINATOR_ID,
      SELF_ID,
      WORKER_ID,
      DEAD_ID,
    ]);
  });
});

describe('the header lines', () => {
  it('given no node holding the lease, when the coordinator is described, then it says so with the term', () => {
    expect(describeCoordinator({ ...federated, coordinator: null })).toBe(
      'none (no node holds the lease), term 42',
    );
  });

  it('given this node coordinates, when the coordinator is described, then it is marked as this one', () => {
    expect(describeCoordinator(single)).toBe('3f2a9c1e (this), term 1');
  });

  it('given every shard owned, when unassigned shards are described, then there is nothing to say', () => {
    expect(describeUnassigned(0)).toBeNull();
    expect(describeUnassigned(1)).toBe('1 shard (no live node owns them)');
  });

  it('given no fire yet, when the firing lag is described, then it says none rather than zero', () => {
    expect(describeFiringLag(null)).toBe('none yet (nothing has fired)');
    expect(describeFiringLag(1_500)).toBe('2s (p99 over the last minute)');
  });
});

describe('renderClusterStatus', () => {
  it('given a node whose store is unreachable, when rendered, then the degraded notice comes first', () => {
    const degraded = 'degraded: store unreachable for 45s, firing every-host jobs from the local copy';
    const lines = renderClusterStatus({ ...federated, degraded }, plain).split('\n');
    expect(lines.slice(0, 3)).toEqual([degraded, '', 'Mode:         federated (daemons sharing PostgreSQL)']);
  });

  it('given a federation of four, when rendered, then the header, the node table and the firing lag show', () => {
    expect(renderClusterStatus(federated, plain)).toBe(
      [
        'Mode:         federated (daemons sharing PostgreSQL)',
        `This node:    ${SELF_ID}`,
        'Coordinator:  8b1d2e3f, term 42',
        'Shard map:    published 12s ago',
        '',
        'NODE               HOST      STATE  SHARDS  LOAD  HEARTBEAT  VERSION  LABELS',
        '* 8b1d2e3f         build-02  alive      85     0   1.2s ago  0.1.0    zone=b',
        '  3f2a9c1e (this)  build-01  alive      86     2   0.4s ago  0.1.0    zone=a',
        '  a0c4e7d9         build-03  alive      85     5   0.9s ago  0.1.0    -',
        '  77aa0011         build-04  dead        0     0     2m ago  0.1.0    -',
        '',
        'Firing lag:   12ms (p99 over the last minute)',
      ].join('\n'),
    );
  });

  it('given a single daemon, when rendered, then it is one node, coordinator and self, with all 256 shards', () => {
    const text = renderClusterStatus(single, plain);
    expect(text).toContain('Mode:         single (one daemon, its own SQLite store)');
    expect(text).toContain('* 3f2a9c1e (this)  build-01  alive     256     0   0.3s ago');
    expect(text).toContain('Firing lag:   none yet');
  });

  it('given shards no live node owns, when rendered, then a line says how many, above the firing lag', () => {
    const lines = renderClusterStatus({ ...federated, unassignedShards: 85 }, plain).split('\n');
    expect(lines.slice(-2)).toEqual([
      'Unassigned:   85 shards (no live node owns them)',
      'Firing lag:   12ms (p99 over the last minute)',
    ]);
  });

  it('given no shard map yet, when rendered, then the map line says none yet', () => {
    expect(renderClusterStatus({ ...federated, mapPublishedAt: null, term: 0 }, plain)).toContain(
      'Shard map:    none yet',
    );
  });

  it('given colour, when the node table is rendered, then dead nodes are red and live ones green', () => {
    const table = renderNodeTable(federated, new Chalk({ level: 1 }));
    const dead = table.split('\n').find((line) => line.includes('build-04'));
    const alive = table.split('\n').find((line) => line.includes('build-01'));
    expect(dead).toContain('\u001b[31mdead\u001b[39m');
    expect(alive).toContain('\u001b[32malive\u001b[39m');
  });
});

describe('renderClusterStatus in peer mode', () => {
  it('given a peer cluster, when rendered, then it names the mode, each voter with how membership sees it, and the leader with its term', () => {
    const text = renderClusterStatus(
      {
        ...federated,
        mode: 'peers',
        peers: {
          voters: ['10.0.0.1:7946', '10.0.0.2:7946', '10.0.0.3:7946'],
          voting: true,
          leader: '10.0.0.2:7946',
          raftTerm: 5,
          members: [
            { id: '10.0.0.1:7946', state: 'alive' },
            { id: '10.0.0.2:7946', state: 'alive' },
            { id: '10.0.0.3:7946', state: 'suspect' },
          ],
        },
      },
      plain,
    );
    expect(text).toContain(
      'Mode:         peers (daemons replicating one log among themselves, no shared database)',
    );
    expect(text).toContain(
      'Voters:       10.0.0.1:7946 (alive), 10.0.0.2:7946 (alive), 10.0.0.3:7946 (suspect)',
    );
    expect(text).toContain('Leader:       10.0.0.2:7946, term 5');
    expect(text).toContain('This node:    ');
    expect(text).not.toContain('not a voter');
  });

  it('given members that advertise a protocol version, when rendered, then each voter shows it', () => {
    const text = renderClusterStatus(
      {
        ...federated,
        mode: 'peers',
        peers: {
          voters: ['10.0.0.1:7946', '10.0.0.2:7946'],
          voting: true,
          leader: '10.0.0.1:7946',
          raftTerm: 5,
          members: [
            { id: '10.0.0.1:7946', state: 'alive', protocol: 2 },
            { id: '10.0.0.2:7946', state: 'alive', protocol: 1 },
          ],
        },
      },
      plain,
    );

    expect(text).toContain(
      'Voters:       10.0.0.1:7946 (alive, protocol 2), 10.0.0.2:7946 (alive, protocol 1)',
    );
  });

  it('given a node that is not a voter (joining), when rendered, then it says so and how it becomes one', () => {
    const text = renderClusterStatus(
      {
        ...federated,
        mode: 'peers',
        node: '10.0.0.4:7946',
        peers: { voters: ['10.0.0.1:7946'], voting: false, leader: null, raftTerm: 5, members: [] },
      },
      plain,
    );

    expect(text).toContain(
      'This node:    10.0.0.4:7946 (not a voter: it follows the log; `sched cluster join 10.0.0.4:7946` on a voter makes it one)',
    );
  });
});
