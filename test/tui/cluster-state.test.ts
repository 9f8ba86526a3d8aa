import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { interpretKey, splitKeys } from '../../src/tui/keymap.js';
import { clusterRows } from '../../src/tui/layout.js';
import { reduce } from '../../src/tui/state/reduce.js';
import type { Action, DashState } from '../../src/tui/state/types.js';
import { clusterNode, federated } from './cluster-fixtures.js';
import { loaded, makeJob, makeRun, NOW, SIZE_80x24 } from './fixtures.js';

const after = (state: DashState, ...actions: Action[]) => actions.reduce(reduce, state);
const key = (overrides: Partial<Key> = {}): Key => ({ ...splitKeys('ab', {} as Key)[0]![1], ...overrides });
const press = (state: DashState, input: string, overrides: Partial<Key> = {}) =>
  interpretKey(state, input, key(overrides));

const alpha = makeJob({ name: 'alpha' });
const running = makeRun(alpha, { state: 'running', finishedAt: null, exitCode: null });
const dash = loaded([alpha], { running: [running], recent: [running] });

/** A federation of `count` live nodes, named node-00 … */
function manyNodes(count: number) {
  return {
    ...federated,
    nodes: Array.from({ length: count }, (_, index) =>
      clusterNode({ id: `node-${String(index).padStart(2, '0')}`, hostname: `host-${index}` }),
    ),
  };
}

describe('reduce: the cluster status', () => {
  it('given a status read, when it arrives, then it is kept with the time it arrived and nothing marked unavailable', () => {
    const state = after(dash, { type: 'cluster-status', status: federated, now: NOW + 2_000 });
    expect(state.cluster).toEqual({ status: federated, readAt: NOW + 2_000, unavailable: null });
  });

  it('given a status read, when a later read fails, then the last status stays, marked with why the read failed', () => {
    const state = after(
      dash,
      { type: 'cluster-status', status: federated, now: NOW },
      { type: 'cluster-unavailable', reason: 'the store is down' },
    );
    expect(state.cluster).toEqual({ status: federated, readAt: NOW, unavailable: 'the store is down' });
  });

  it('given a failed read, when a read succeeds again, then it is no longer marked unavailable', () => {
    const state = after(
      dash,
      { type: 'cluster-unavailable', reason: 'Unknown request "cluster.status".' },
      { type: 'cluster-status', status: federated, now: NOW },
    );
    expect(state.cluster.unavailable).toBeNull();
  });
});

describe('reduce: the cluster view', () => {
  it('given the jobs table, when the cluster view opens and Esc goes back, then the same job is still selected', () => {
    const opened = after(dash, { type: 'open-cluster' });
    expect(opened.view).toEqual({ kind: 'cluster', scroll: 0 });
    const back = after(opened, { type: 'back' });
    expect(back.view).toEqual({ kind: 'main' });
    expect(back.selectedJobId).toBe(alpha.id);
  });

  it('given more nodes than rows, when moving down past the end, then it scrolls only until the last node shows', () => {
    const state = after(
      dash,
      { type: 'cluster-status', status: manyNodes(40), now: NOW },
      { type: 'open-cluster' },
    );
    const lastScroll = 40 - clusterRows(SIZE_80x24);
    expect(after(state, { type: 'move', delta: 1 }).view).toEqual({ kind: 'cluster', scroll: 1 });
    expect(after(state, { type: 'edge', where: 'bottom' }).view).toEqual({
      kind: 'cluster',
      scroll: lastScroll,
    });
    expect(after(state, { type: 'edge', where: 'bottom' }, { type: 'move', delta: 5 }).view).toEqual({
      kind: 'cluster',
      scroll: lastScroll,
    });
    expect(after(state, { type: 'move', delta: -3 }).view).toEqual({ kind: 'cluster', scroll: 0 });
  });

  it('given the view scrolled to the end, when nodes leave the cluster, then the scroll shrinks so no rows are left empty', () => {
    const scrolled = after(
      dash,
      { type: 'cluster-status', status: manyNodes(40), now: NOW },
      { type: 'open-cluster' },
      { type: 'edge', where: 'bottom' },
    );
    const shrunk = after(scrolled, { type: 'cluster-status', status: manyNodes(20), now: NOW + 2_000 });
    expect(shrunk.view).toEqual({ kind: 'cluster', scroll: 20 - clusterRows(SIZE_80x24) });
  });

  it('given fewer nodes than rows, when PgDn is pressed, then the view does not scroll', () => {
    const state = after(
      dash,
      { type: 'cluster-status', status: federated, now: NOW },
      { type: 'open-cluster' },
    );
    expect(after(state, { type: 'page', direction: 1 }).view).toEqual({ kind: 'cluster', scroll: 0 });
  });
});

describe('keys and the cluster view', () => {
  const inCluster = after(dash, { type: 'open-cluster' });

  it('given the jobs table, when n is pressed, then the cluster view opens', () => {
    expect(press(dash, 'n').actions).toEqual([{ type: 'open-cluster' }]);
  });

  it('given a job open, when n is pressed, then the cluster view opens from there too', () => {
    const jobOpen = after(dash, { type: 'open-job', jobId: alpha.id });
    expect(press(jobOpen, 'n').actions).toEqual([{ type: 'open-cluster' }]);
  });

  it('given the cluster view, when n or Esc is pressed, then it goes back', () => {
    expect(press(inCluster, 'n').actions).toEqual([{ type: 'back' }]);
    expect(press(inCluster, '', { escape: true }).actions).toEqual([{ type: 'back' }]);
  });

  it('given the cluster view over a job that is running, when x is pressed, then nothing is killed', () => {
    const outcome = press(inCluster, 'x');
    expect(outcome.effects).toEqual([]);
    expect(outcome.actions).toEqual([
      expect.objectContaining({ type: 'flash', text: 'Nothing running to kill here.' }),
    ]);
  });

  it('given the cluster view, when Enter, t, p or c is pressed, then the job behind it is left alone', () => {
    for (const input of ['t', 'p', 'c'])
      expect(press(inCluster, input)).toEqual({ actions: [], effects: [], quit: false });
    expect(press(inCluster, '', { return: true })).toEqual({ actions: [], effects: [], quit: false });
  });

  it('given a cancel being confirmed, when n is pressed, then it answers no rather than opening the cluster', () => {
    const confirming = after(dash, { type: 'confirm-cancel', jobId: alpha.id, name: 'alpha' });
    expect(press(confirming, 'n').actions).toEqual([{ type: 'confirm-dismiss' }]);
  });
});
