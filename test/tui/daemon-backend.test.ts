import { describe, expect, it } from 'vitest';
import type { SchedClient } from '../../src/client/sched-client.js';
import { SchedError } from '../../src/core/errors.js';
import { DaemonBackend } from '../../src/tui/backend/daemon-backend.js';
import type { Action } from '../../src/tui/state/types.js';
import { waitFor } from '../support/sched-harness.js';

const refused = () =>
  new SchedError('DAEMON_UNAVAILABLE', 'The sched daemon is not running.', {
    details: { errno: 'ECONNREFUSED' },
  });

describe('DaemonBackend', () => {
  it('given no daemon, when started, then it keeps trying with growing, bounded waits and says why', async () => {
    const actions: Action[] = [];
    let attempts = 0;
    const backend = new DaemonBackend({
      target: { socketPath: '/nowhere/sched.sock' },
      connect: async () => {
        attempts += 1;
        throw refused();
      },
      now: () => 1_000,
      random: () => 0,
    });
    // With random() = 0 each wait is half its cap: 125, 250, 500 ms…
    const stop = backend.start((action) => actions.push(action));
    await waitFor(async () => attempts >= 3, 5_000, 10);
    stop();
    const reconnecting = actions.filter((action) => action.type === 'connection');
    expect(reconnecting[0]).toEqual({
      type: 'connection',
      connection: {
        kind: 'reconnecting',
        attempt: 1,
        reason: 'daemon not running (ECONNREFUSED)',
        retryAt: 1_125,
      },
      now: 1_000,
    });
    expect(reconnecting[1]).toMatchObject({ connection: { attempt: 2, retryAt: 1_250 } });
  });

  it('given it was stopped while waiting, when the wait ends, then it does not connect again', async () => {
    let attempts = 0;
    const backend = new DaemonBackend({
      target: { socketPath: '/nowhere/sched.sock' },
      connect: async () => {
        attempts += 1;
        throw refused();
      },
      random: () => 0, // the first wait is 125 ms
    });
    const stop = backend.start(() => {});
    await waitFor(async () => attempts === 1, 5_000, 5);
    stop();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(attempts).toBe(1);
  });

  it('given no connection, when a key asks for something, then it says it is not connected', () => {
    const actions: Action[] = [];
    const backend = new DaemonBackend({
      target: { socketPath: '/nowhere/sched.sock' },
      connect: () => new Promise<SchedClient>(() => {}),
    });
    backend.perform({ kind: 'pause', jobId: 'j', name: 'nightly' }, (action) => actions.push(action));
    expect(actions).toEqual([
      expect.objectContaining({
        type: 'flash',
        tone: 'error',
        text: 'Not connected to the daemon; try again once it is back.',
      }),
    ]);
  });
});
