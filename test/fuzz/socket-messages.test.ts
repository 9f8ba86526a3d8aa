import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DaemonClient } from '../../src/client/daemon-client.js';
import { JOB_STATUSES } from '../../src/core/job-status.js';
import { exchange, type RawExchange } from '../support/raw-socket.js';
import { isAlive, useDaemons, type RunningDaemon } from '../support/sched-harness.js';
import { costlyRuns } from './support/fuzz-runs.js';
import { GHOST, clientBytes } from './support/socket-messages.js';

/** Everything a refused message could have changed: every job in every state, the runs and the audit log. */
async function stored(client: DaemonClient) {
  return {
    jobs: await client.call('job.list', { limit: 1000, states: [...JOB_STATUSES] }),
    runs: await client.call('run.list', { limit: 1000 }),
    audit: await client.call('audit.list', { limit: 1000 }),
  };
}

/** A reply the daemon sent: a response in our envelope whose error, if any, is a code and a sentence, no stack. */
function expectWellFormedReplies(result: RawExchange): void {
  for (const reply of result.replies) {
    expect(reply).toMatchObject({ type: 'sched', data: { kind: 'response' } });
    const data = (reply as { data: { ok: boolean; error?: { code: string; message: string } } }).data;
    if (data.ok) continue;
    expect(data.error?.code).toMatch(/^[A-Z_]+$/);
    expect(data.error?.message).not.toMatch(/\n\s+at /);
  }
}

describe('the daemon socket, given random and damaged messages', () => {
  const daemons = useDaemons(afterAll);
  let daemon: RunningDaemon;
  let socketPath: string;
  let client: DaemonClient;
  let before: Awaited<ReturnType<typeof stored>>;

  beforeAll(async () => {
    const home = daemons.home();
    daemon = await daemons.start(home);
    socketPath = path.join(home, 'sched.sock');
    client = await DaemonClient.connect(socketPath);
    await client.call('job.add', { input: { name: 'keep', cron: '0 3 1 1 *', argv: ['true'] } });
    before = await stored(client);
  });

  afterAll(() => client?.close());

  /** The daemon runs, answers a connection made before and one made now, and stores what it stored before. */
  async function expectUnharmed(): Promise<void> {
    expect(isAlive(daemon.pid)).toBe(true);
    expect((await client.call('daemon.status', {})).pid).toBe(daemon.pid);
    const fresh = await DaemonClient.connect(socketPath);
    try {
      expect((await fresh.call('job.get', { ref: 'keep' })).job.name).toBe('keep');
    } finally {
      fresh.close();
    }
    expect(await stored(client)).toEqual(before);
  }

  it(`given one client's bytes (frames of any message, damaged, huge or deep, naming only ${GHOST} for writes), then the daemon answers sensibly or hangs up, and nothing changes`, async () => {
    await fc.assert(
      fc.asyncProperty(clientBytes, fc.boolean(), async (bytes, endAfter) => {
        // A frame left unfinished on an open connection is held until more comes: 750 ms is enough to see the rest.
        const result = await exchange(socketPath, bytes, { endAfter, timeoutMs: 750 });
        expectWellFormedReplies(result);
        await expectUnharmed();
      }),
      { numRuns: costlyRuns(20) },
    );
  });

  it('given a flood of connections at once, some writing damaged frames and some closing at once, then the daemon goes on', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.option(clientBytes, { freq: 4 }), { minLength: 20, maxLength: 200 }),
        async (clients) => {
          await Promise.all(
            clients.map((bytes) =>
              exchange(socketPath, bytes ?? Buffer.alloc(0), { endAfter: true, timeoutMs: 5_000 }),
            ),
          );
          await expectUnharmed();
        },
      ),
      { numRuns: costlyRuns(2) },
    );
  });
});
