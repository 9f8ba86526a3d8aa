import { describe, expect, it } from 'vitest';
import { SchedError } from '../../../src/core/errors.js';
import { untilQuorum } from '../../../src/daemon/cluster/until-quorum.js';

const noQuorum = () => new SchedError('NO_QUORUM', 'no majority of the voters reachable');

describe('untilQuorum', () => {
  it('tries again while the write is refused for want of a majority, and says so once', async () => {
    let attempts = 0;
    const waits: string[] = [];
    const result = await untilQuorum(
      async () => {
        attempts += 1;
        if (attempts < 4) throw noQuorum();
        return 'recorded';
      },
      { signal: new AbortController().signal, onWaiting: (error) => waits.push(error.message), retryMs: 1 },
    );
    expect(result).toBe('recorded');
    expect(attempts).toBe(4);
    expect(waits).toEqual(['no majority of the voters reachable']);
  });

  it('says so again, with how long it has waited, every reminder period', async () => {
    let attempts = 0;
    const waited: number[] = [];
    await untilQuorum(
      async () => {
        attempts += 1;
        if (attempts < 8) throw noQuorum();
      },
      {
        signal: new AbortController().signal,
        onWaiting: (_error, waitedMs) => waited.push(waitedMs),
        retryMs: 1,
        remindEveryMs: 3,
      },
    );
    expect(waited).toEqual([0, 3, 6]);
  });

  it('fails at once on any other error', async () => {
    let attempts = 0;
    const refused = untilQuorum(
      async () => {
        attempts += 1;
        throw new SchedError('SECRET_KEY_MISMATCH', 'another key');
      },
      { signal: new AbortController().signal, onWaiting: () => undefined, retryMs: 1 },
    );
    await expect(refused).rejects.toThrow('another key');
    expect(attempts).toBe(1);
  });

  it('gives up waiting when the daemon is asked to stop', async () => {
    const stop = new AbortController();
    const waiting = untilQuorum(
      async () => {
        throw noQuorum();
      },
      { signal: stop.signal, onWaiting: () => stop.abort(), retryMs: 60_000 },
    );
    await expect(waiting).rejects.toThrow(/stopping/);
  });
});
