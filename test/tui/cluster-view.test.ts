import chalk from 'chalk';
import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClusterStatus } from '../../src/ipc/protocol.js';
import { reduce } from '../../src/tui/state/reduce.js';
import type { Action, DashState } from '../../src/tui/state/types.js';
import { clusterNode, federated, single } from './cluster-fixtures.js';
import { loaded, makeJob, NOW, snapshot } from './fixtures.js';
import { FakeBackend, rawScreenOf, renderDashboard, screenOf } from './render.js';

const alpha = makeJob({ name: 'alpha' });
const UNKNOWN_METHOD =
  'Unknown request "cluster.status". The client and daemon versions may differ; restart the daemon.';

/** The cluster view after `actions`, on an 80×24 terminal unless `size` says otherwise. */
function clusterView(actions: Action[], size = { columns: 80, rows: 24 }): DashState {
  return [{ type: 'open-cluster' } as Action, ...actions].reduce(reduce, loaded([alpha], {}, size));
}
const read = (status: ClusterStatus, now = NOW): Action => ({ type: 'cluster-status', status, now });
const lineWith = (screen: string, text: string) => screen.split('\n').find((line) => line.includes(text));

afterEach(() => {
  chalk.level = 0;
  cleanup();
});

describe('the cluster view', () => {
  it('given four nodes, when drawn at 80x24, then the title names mode, coordinator and term, and the coordinator comes first', () => {
    const screen = screenOf(clusterView([read(federated)]));
    expect(screen.split('\n')).toHaveLength(23);
    expect(screen).toMatchInlineSnapshot(`
      "sched daemon pid 4100 · node build-01 · up 3h 2m · sqlite:/home/alice… ● live
      1 jobs: 1 active, 0 paused · 0 running · 0 runs/min
      ‹ CLUSTER federated · 4 nodes · coordinator 8b1d2e3f · term 42 · map 12s old
        NODE              HOST      STATE   SHARDS LOAD HEARTBEAT VERSION  LABELS
        * 8b1d2e3f        build-02  ● alive     85    0  1.2s ago 0.1.0    zone=b
          3f2a9c1e (this) build-01  ● alive     86    2  0.4s ago 0.1.0    zone=a
          a0c4e7d9        build-03  ● alive     85    5  0.9s ago 0.1.0
          77aa0011        build-04  ✗ dead       0    0    2m ago 0.1.0













        firing lag 12ms (p99, last minute)
      ↑↓ scroll  Esc or n back  ? help  q quit"
    `);
  });

  it('given a single daemon, when drawn, then it is one node, coordinator and this one, with all 256 shards', () => {
    const screen = screenOf(clusterView([read(single)]));
    expect(screen).toContain('‹ CLUSTER single · 1 node · coordinator 3f2a9c1e · term 1');
    expect(lineWith(screen, '(this)')).toMatch(/^ {2}\* 3f2a9c1e \(this\) +build-01 +● alive +256 /);
    expect(screen).toContain('firing lag: nothing has fired yet');
  });

  it('given no answer yet, when drawn, then it says the status is being read', () => {
    expect(screenOf(clusterView([]))).toContain('  reading the cluster status…');
  });

  it('given a daemon that does not know cluster.status, when drawn, then it says the cluster status is unavailable', () => {
    const screen = screenOf(
      clusterView([{ type: 'cluster-unavailable', reason: UNKNOWN_METHOD }], { columns: 140, rows: 24 }),
    );
    expect(screen).toContain(`  cluster status unavailable: ${UNKNOWN_METHOD}`);
  });

  it('given a read that failed after one that worked, when drawn, then the nodes stay and the notes say they are stale', () => {
    const screen = screenOf(
      clusterView([
        read(federated),
        { type: 'tick', now: NOW + 4_000 },
        { type: 'cluster-unavailable', reason: 'the store is down' },
      ]),
    );
    expect(screen).toContain('* 8b1d2e3f');
    expect(screen).toContain('  cluster status unavailable (last answer 4.0s old): the store is down');
  });

  it('given a second passing after the answer, when drawn, then heartbeat ages have grown by it', () => {
    const screen = screenOf(clusterView([read(federated), { type: 'tick', now: NOW + 3_000 }]));
    expect(lineWith(screen, '(this)')).toContain('3.4s ago');
    expect(screen).toContain('map 15s old');
  });

  it('given shards no live node owns, when drawn, then the notes say how many', () => {
    const screen = screenOf(clusterView([read({ ...federated, unassignedShards: 85 })]));
    expect(screen).toContain('  85 shards unassigned · firing lag 12ms');
  });

  it('given a node whose store is unreachable, when drawn, then the notes say it is degraded', () => {
    const degraded = 'degraded: store unreachable for 45s, firing every-host jobs from the local copy';
    const screen = screenOf(clusterView([read({ ...federated, degraded })], { columns: 120, rows: 24 }));
    expect(screen).toContain(`  ${degraded} · firing lag 12ms`);
  });

  it('given no coordinator and no map, when drawn, then the title says so', () => {
    const leaderless = { ...federated, coordinator: null, term: 0, mapPublishedAt: null };
    expect(screenOf(clusterView([read(leaderless)]))).toContain(
      '‹ CLUSTER federated · 4 nodes · no coordinator · term 0 · no map yet',
    );
  });

  it('given more nodes than fit, when drawn, then the title says which of them show', () => {
    const nodes = Array.from({ length: 40 }, (_, index) =>
      clusterNode({
        id: `node-${String(index).padStart(2, '0')}`,
        hostname: `host-${String(index).padStart(2, '0')}`,
      }),
    );
    const screen = screenOf(clusterView([read({ ...federated, nodes }), { type: 'move', delta: 2 }]));
    expect(screen).toContain('nodes 3–19 of 40');
    expect(screen).toContain('host-02');
    expect(screen).not.toContain('host-01');
  });

  it('given the smallest terminal, when drawn, then the node rows fit uncut, their heartbeats still showing', () => {
    const screen = screenOf(clusterView([read(federated)], { columns: 50, rows: 12 }));
    const table = screen.split('\n').filter((line) => /^ {2}(NODE|\*| {2}[0-9a-f]{8})/.test(line));
    expect(table).toHaveLength(5);
    for (const line of table) {
      expect(line.length).toBeLessThanOrEqual(49);
      expect(line).not.toContain('…');
    }
    expect(table[0]).toMatch(/HEARTBEAT$/);
    expect(lineWith(screen, '* 8b1d2e3f')).toMatch(/1\.2s ago$/);
  });

  it('given colour, when drawn, then a dead node is red and dim and a live one green; without colour the words remain', () => {
    chalk.level = 1;
    const state = clusterView([read(federated)]);
    const coloured = rawScreenOf(state, { colour: true });
    const dead = lineWith(coloured, '77aa0011')!;
    expect(dead).toContain('\u001b[2m');
    expect(dead).toContain('\u001b[31m✗ dead');
    expect(lineWith(coloured, '(this)')).toContain('\u001b[32m● alive');
    const plain = rawScreenOf(state, { colour: false });
    expect(lineWith(plain, '77aa0011')).not.toMatch(new RegExp(String.raw`\u001b\[3[0-7]m`));
    expect(plain).toContain('✗ dead');
  });
});

describe('the cluster view in the live dashboard', () => {
  async function started() {
    const backend = new FakeBackend();
    const dash = renderDashboard(backend, NOW);
    backend.dispatch({ type: 'snapshot', snapshot: snapshot([alpha]), now: NOW });
    await dash.frameWhere((frame) => frame.includes('● live') && frame.includes('alpha'));
    return { dash, backend };
  }

  it('given the jobs table, when drawn, then the footer offers n for the nodes', async () => {
    const { dash } = await started();
    expect(dash.screen()).toContain('n nodes');
  });

  it('given the jobs table, when n is pressed and a status arrives, then the nodes show; Esc returns to the jobs', async () => {
    const { dash, backend } = await started();
    dash.press('n');
    await dash.frameWhere((frame) => frame.includes('reading the cluster status…'));
    backend.dispatch(read(federated));
    await dash.frameWhere((frame) => frame.includes('* 8b1d2e3f') && frame.includes('term 42'));
    dash.press('\u001B');
    expect(await dash.frameWhere((frame) => frame.includes('JOBS'))).toContain('alpha');
  });

  it('given a daemon that does not know cluster.status, when the cluster view is open, then it says so and the dashboard goes on', async () => {
    const { dash, backend } = await started();
    dash.press('n');
    backend.dispatch({ type: 'cluster-unavailable', reason: UNKNOWN_METHOD });
    await dash.frameWhere((frame) => frame.includes('cluster status unavailable'));
    dash.press('n');
    expect(await dash.frameWhere((frame) => frame.includes('JOBS'))).toContain('alpha');
  });
});
