import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ErrorShape } from '../../src/core/errors.js';
import type { ClusterStatus, RequestMessage, ResponseMessage } from '../../src/ipc/protocol.js';
import { serve, type ServerConnection, type TransportServer } from '../../src/ipc/transport.js';
import { DaemonBackend } from '../../src/tui/backend/daemon-backend.js';
import type { Action } from '../../src/tui/state/types.js';
import { makeHome, removeHome, waitFor } from '../support/sched-harness.js';
import { single } from './cluster-fixtures.js';
import { daemonStatus } from './fixtures.js';

const OLD_DAEMON: ErrorShape = {
  code: 'VALIDATION_FAILED',
  message: 'Unknown request "cluster.status".',
  hint: 'The client and daemon versions may differ; restart the daemon.',
};

interface ScriptedDaemon {
  socketPath: string;
  clusterReads: () => number;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A daemon on a real socket with no jobs and no runs, answering `cluster.status` with `cluster`: enough
 * for the dashboard's backend to connect and poll as it would against `sched daemon run`.
 */
async function scriptedDaemon(cluster: ClusterStatus | ErrorShape): Promise<ScriptedDaemon> {
  const home = makeHome('sched-dash-cluster-');
  cleanups.push(() => removeHome(home));
  const socketPath = path.join(home, 'sched.sock');
  let clusterReads = 0;
  const results: Record<string, unknown> = {
    'daemon.status': daemonStatus,
    'job.list': { items: [], nextCursor: null },
    'run.list': { items: [], nextCursor: null },
    'events.subscribe': { subscribed: true, types: null },
  };
  const answer = (message: unknown, connection: ServerConnection): void => {
    const request = message as RequestMessage;
    let response: ResponseMessage = {
      kind: 'response',
      id: request.id,
      ok: true,
      result: results[request.method],
    };
    if (request.method === 'cluster.status') {
      clusterReads += 1;
      response =
        'mode' in cluster
          ? { kind: 'response', id: request.id, ok: true, result: cluster }
          : { kind: 'response', id: request.id, ok: false, error: cluster };
    }
    connection.send(response);
  };
  const server: TransportServer = await serve(socketPath, {
    message: answer,
    refused: () => undefined,
    fault: () => undefined,
  });
  cleanups.push(() => server.close());
  return { socketPath, clusterReads: () => clusterReads };
}

function startBackend(socketPath: string, actions: Action[]): () => void {
  const backend = new DaemonBackend({ target: { socketPath }, clusterPollMs: 30 });
  const stop = backend.start((action) => actions.push(action));
  cleanups.push(stop);
  return stop;
}

describe('the dashboard backend and cluster.status, over a real socket', () => {
  it('given a daemon that answers cluster.status, when the backend connects, then the snapshot comes first and the status right after', async () => {
    const daemon = await scriptedDaemon(single);
    const actions: Action[] = [];
    startBackend(daemon.socketPath, actions);
    await waitFor(async () => actions.some((action) => action.type === 'cluster-status'), 10_000, 10);
    const types = actions.map((action) => action.type);
    expect(types.indexOf('snapshot')).toBeLessThan(types.indexOf('cluster-status'));
    expect(actions.find((action) => action.type === 'cluster-status')).toMatchObject({ status: single });
  });

  it('given a daemon that does not know cluster.status, when polled, then the dashboard is told it is unavailable and keeps running', async () => {
    const daemon = await scriptedDaemon(OLD_DAEMON);
    const actions: Action[] = [];
    startBackend(daemon.socketPath, actions);
    await waitFor(async () => daemon.clusterReads() >= 3, 10_000, 10);
    expect(actions.find((action) => action.type === 'cluster-unavailable')).toEqual({
      type: 'cluster-unavailable',
      reason: `${OLD_DAEMON.message} ${OLD_DAEMON.hint}`,
    });
    // Still connected: one snapshot, no reconnect caused by the failing method.
    expect(actions.filter((action) => action.type === 'connection')).toEqual([]);
    expect(actions.filter((action) => action.type === 'snapshot')).toHaveLength(1);
  });

  it('given the backend polling, when it is stopped, then the daemon is asked no more', async () => {
    const daemon = await scriptedDaemon(single);
    const stop = startBackend(daemon.socketPath, []);
    await waitFor(async () => daemon.clusterReads() >= 2, 10_000, 10);
    stop();
    const atStop = daemon.clusterReads();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(daemon.clusterReads()).toBe(atStop);
  });
});
