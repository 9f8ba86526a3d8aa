import { afterEach, describe, expect, it } from 'vitest';
import type { DaemonClient } from '../../src/client/daemon-client.js';
import { SchedError } from '../../src/core/errors.js';
import type { ClusterStatus } from '../../src/ipc/protocol.js';
import { ClusterPoller } from '../../src/tui/backend/cluster-poller.js';
import type { Action } from '../../src/tui/state/types.js';
import { sleep, waitFor } from '../support/sched-harness.js';
import { federated } from './cluster-fixtures.js';

const INTERVAL_MS = 20;

/** A connection whose `cluster.status` answers with `answer()`; it counts the requests. */
function connection(answer: () => Promise<ClusterStatus>) {
  const asked = { count: 0 };
  const client = {
    call: (method: string) => {
      if (method !== 'cluster.status') throw new Error(`unexpected request ${method}`);
      asked.count += 1;
      return answer();
    },
  } as unknown as DaemonClient;
  return { client, asked };
}

const pollers: ClusterPoller[] = [];
function poller(client: () => DaemonClient | null, actions: Action[]): ClusterPoller {
  const made = new ClusterPoller({
    client,
    dispatch: (action) => actions.push(action),
    now: () => 7_000,
    intervalMs: INTERVAL_MS,
  });
  pollers.push(made);
  return made;
}
afterEach(() => {
  for (const made of pollers.splice(0)) made.stop();
});

describe('ClusterPoller', () => {
  it('given a daemon that answers, when asked to read now, then the status is dispatched with the time it arrived', async () => {
    const { client } = connection(async () => federated);
    const actions: Action[] = [];
    poller(() => client, actions).readNow();
    await waitFor(async () => actions.length > 0, 2_000, 5);
    expect(actions[0]).toEqual({ type: 'cluster-status', status: federated, now: 7_000 });
  });

  it('given it reads, when the interval passes, then it reads again, until it is stopped', async () => {
    const { client, asked } = connection(async () => federated);
    const reads = poller(() => client, []);
    reads.readNow();
    await waitFor(async () => asked.count >= 3, 2_000, 5);
    reads.stop();
    const atStop = asked.count;
    await sleep(INTERVAL_MS * 4);
    expect(asked.count).toBe(atStop);
  });

  it('given a daemon that does not know cluster.status, when read, then the panel is told why and the reads go on', async () => {
    const { client, asked } = connection(async () => {
      throw new SchedError('VALIDATION_FAILED', 'Unknown request "cluster.status".', {
        hint: 'The client and daemon versions may differ; restart the daemon.',
      });
    });
    const actions: Action[] = [];
    poller(() => client, actions).readNow();
    await waitFor(async () => asked.count >= 2, 2_000, 5);
    expect(actions[0]).toEqual({
      type: 'cluster-unavailable',
      reason:
        'Unknown request "cluster.status". The client and daemon versions may differ; restart the daemon.',
    });
  });

  it('given the connection is lost mid-read, when the read fails, then nothing is dispatched: the header already says so', async () => {
    const { client, asked } = connection(async () => {
      throw new SchedError('DAEMON_UNAVAILABLE', 'The sched daemon closed the connection.');
    });
    const actions: Action[] = [];
    poller(() => client, actions).readNow();
    await waitFor(async () => asked.count >= 2, 2_000, 5);
    expect(actions).toEqual([]);
  });

  it('given a read still waiting for its answer, when asked to read now again, then no second request is sent', async () => {
    let answer: (status: ClusterStatus) => void = () => {};
    const { client, asked } = connection(() => new Promise((resolve) => (answer = resolve)));
    const actions: Action[] = [];
    const reads = poller(() => client, actions);
    reads.readNow();
    reads.readNow();
    await sleep(INTERVAL_MS * 3);
    expect(asked.count).toBe(1);
    answer(federated);
    await waitFor(async () => actions.length === 1, 2_000, 5);
  });

  it('given no connection yet, when the interval passes, then nothing is asked until there is one', async () => {
    const { client, asked } = connection(async () => federated);
    let current: DaemonClient | null = null;
    const actions: Action[] = [];
    poller(() => current, actions).readNow();
    await sleep(INTERVAL_MS * 3);
    expect(asked.count).toBe(0);
    current = client;
    await waitFor(async () => actions.length > 0, 2_000, 5);
    expect(actions[0]).toMatchObject({ type: 'cluster-status' });
  });

  it('given it was stopped while a read was waiting, when the answer comes, then it is not dispatched', async () => {
    let answer: (status: ClusterStatus) => void = () => {};
    const { client } = connection(() => new Promise((resolve) => (answer = resolve)));
    const actions: Action[] = [];
    const reads = poller(() => client, actions);
    reads.readNow();
    reads.stop();
    answer(federated);
    await sleep(INTERVAL_MS * 2);
    expect(actions).toEqual([]);
  });
});
