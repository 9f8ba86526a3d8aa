import { afterEach, describe, expect, it } from 'vitest';
import { leaderAgreed, peerStatus, startPeerDaemons } from '../support/peer-daemons.js';
import { sched, useDaemons, waitFor } from '../support/sched-harness.js';

interface NodeRow {
  id: string;
  load: number;
  heartbeatAt: number;
  self: boolean;
}

/** `sched cluster status` on `dir`: its time, and its row for each member. */
async function rows(dir: string): Promise<{ now: number; node: (id: string) => NodeRow }> {
  const status = await peerStatus(dir);
  const nodes = status.nodes as NodeRow[];
  return { now: status.now, node: (id) => nodes.find((node) => node.id === id)! };
}

describe('peer mode: each member as another sees it in `sched cluster status`', () => {
  const { home, start } = useDaemons(afterEach);

  it('given a member running a long job, shows its load of 1 on another member within seconds; given a member killed, its heartbeat grows old while the live ones stay fresh', async () => {
    const { homes, ids, daemons } = await startPeerDaemons(3, home, start);
    await leaderAgreed(homes);

    // Given a job that runs for minutes on member 1 (`--on index=1`; one run at a time by default)
    const added = await sched(homes[0]!, [
      'add',
      'long',
      '--every',
      '2s',
      '--on',
      'index=1',
      '--shell',
      'sleep 300',
    ]);
    expect(added.code, added.stderr).toBe(0);

    // Then member 0 sees member 1's load of 1 (member 1 tells it on the gossip it sends), and its own 0
    const seen = await waitFor(
      async () => {
        const view = await rows(homes[0]!);
        return view.node(ids[1]!).load === 1 ? view : null;
      },
      30_000,
      200,
    );
    expect(seen.node(ids[0]!)).toMatchObject({ self: true, load: 0, heartbeatAt: seen.now });
    for (const id of ids.slice(1)) expect(seen.now - seen.node(id).heartbeatAt).toBeLessThan(10_000);

    // When member 2 is killed
    await daemons[2]!.stop('SIGKILL');

    // Then member 0 last heard from it longer and longer ago, and from member 1 lately still
    const silent = await waitFor(
      async () => {
        const view = await rows(homes[0]!);
        return view.now - view.node(ids[2]!).heartbeatAt >= 15_000 ? view : null;
      },
      60_000,
      500,
    );
    expect(silent.now - silent.node(ids[1]!).heartbeatAt).toBeLessThan(10_000);
    expect(silent.node(ids[1]!).load).toBe(1);
  }, 150_000);
});
