import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { leaderAgreed, startPeerDaemons } from '../support/peer-daemons.js';
import { sched, useDaemons, waitFor } from '../support/sched-harness.js';

describe('peer mode: a leader that dies with a forwarded write unanswered', () => {
  const { home, startComposed } = useDaemons(afterEach);

  it('answers the write through another leader well before the commit timeout, and every member holds the job once', async () => {
    const { homes, ids, daemons } = await startPeerDaemons(3, home, (dir, args) =>
      startComposed(dir, 'forward-then-die-daemon.mjs', ['daemon', 'run', ...args]),
    );
    const leader = ids.indexOf(await leaderAgreed(homes));
    const others = [0, 1, 2].filter((index) => index !== leader);
    fs.writeFileSync(path.join(homes[leader]!, 'die-on-forward'), '');
    const asked = Date.now();

    const added = await sched(homes[others[0]!]!, ['add', 'once', '--every', '1h', '--json', '--', 'true']);

    expect(added.code, added.stderr).toBe(0);
    // The commit timeout is 10 s; the leader's answer is awaited 2 s, then a new one takes it.
    expect(Date.now() - asked).toBeLessThan(9_500);
    expect(await daemons[leader]!.exited).toBeNull();
    for (const index of others)
      await waitFor(
        async () => {
          const listed = await sched(homes[index]!, ['ls', '--json']);
          const names = (listed.json?.items ?? []).map((job: { name: string }) => job.name);
          return names.length === 1 && names[0] === 'once';
        },
        30_000,
        200,
      );
  });
});
