import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DaemonBackend } from '../../src/tui/backend/daemon-backend.js';
import type { Action } from '../../src/tui/state/types.js';
import { sched, useDaemons, waitFor } from '../support/sched-harness.js';

describe('the dashboard cancel key against a real daemon', () => {
  const daemons = useDaemons(afterAll);
  let home: string;

  beforeAll(async () => {
    home = daemons.home();
    await daemons.start(home);
    expect((await sched(home, ['add', 'extract', '--every', '1h', '--', 'true'])).code).toBe(0);
    expect((await sched(home, ['add', 'load', '--after', 'extract', '--', 'true'])).code).toBe(0);
  });

  it('given a job another runs after, when its cancel is confirmed, then the dashboard says it was refused and why, and the job stays', async () => {
    const actions: Action[] = [];
    const backend = new DaemonBackend({ target: { socketPath: path.join(home, 'sched.sock') } });
    const stop = backend.start((action) => actions.push(action));
    try {
      await waitFor(async () => actions.some((action) => action.type === 'snapshot'), 30_000);
      const extract = (await sched(home, ['show', 'extract', '--json'])).json.job;

      backend.perform({ kind: 'cancel', jobId: extract.id, name: 'extract' }, (action) =>
        actions.push(action),
      );

      const flash = await waitFor(async () => actions.find((action) => action.type === 'flash'), 30_000);
      expect(flash).toMatchObject({
        tone: 'error',
        text: 'Not cancelled: load runs after extract. To cancel it anyway: sched cancel extract --force',
      });
      expect((await sched(home, ['show', 'extract', '--json'])).json.job.state).toBe('active');
    } finally {
      stop();
    }
  }, 90_000);
});
