import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '../../src/core/peer/protocol-version.js';
import { freePeerPort, peerRunsOf, peerStatus, startPeerDaemons } from '../support/peer-daemons.js';
import { sched, useDaemons, waitFor } from '../support/sched-harness.js';

describe('peer mode: three daemons with no shared database', () => {
  const { home, start } = useDaemons(afterEach);
  const startPeers = () => startPeerDaemons(3, home, start);
  const status = peerStatus;
  const runsOf = peerRunsOf;

  it('agree on a leader and a map, fire a job added on any of them once per instant with its history on all, go on when its node is killed, and refuse writes without a majority', async () => {
    const { homes, ids, daemons } = await startPeers();
    const agreed = await waitFor(
      async () => {
        const all = await Promise.all(homes.map(status));
        const first = all[0]!;
        const same = all.every(
          (one) =>
            one.mode === 'peers' &&
            one.term > 0 &&
            one.term === first.term &&
            one.coordinator === first.coordinator,
        );
        return same && first.nodes.filter((node: { shards: number }) => node.shards > 0).length === 3
          ? all
          : null;
      },
      30_000,
      200,
    );
    expect(agreed[0].peers.voters).toEqual([...ids].sort());
    expect(agreed[0].peers.members.map((member: { state: string }) => member.state)).toEqual([
      'alive',
      'alive',
      'alive',
    ]);
    // Each advertises this build's peer protocol through gossip, so each can be handed the leadership.
    expect(agreed[0].peers.members.map((member: { protocol: number }) => member.protocol)).toEqual(
      Array(3).fill(PROTOCOL_VERSION),
    );

    const added = await sched(homes[1]!, ['add', 'tick', '--every', '1s', '--', '/bin/true']);
    expect(added.code, added.stderr).toBe(0);
    for (const dir of homes) expect((await sched(dir, ['show', 'tick'])).code).toBe(0);
    const early = await waitFor(
      async () => {
        const runs = await runsOf(homes[2]!, 'tick');
        return runs.length >= 3 ? runs : null;
      },
      30_000,
      200,
    );
    for (const dir of homes) {
      const seen = new Set((await runsOf(dir, 'tick')).map((run) => run.id));
      for (const run of early) expect(seen.has(run.id)).toBe(true);
    }

    const owner = early[0]!.node;
    const killed = daemons[ids.indexOf(owner)]!;
    await killed.stop('SIGKILL');
    const survivors = homes.filter((_, index) => ids[index] !== owner);
    const taken = await waitFor(
      async () => {
        const runs = await runsOf(survivors[0]!, 'tick');
        return runs.some((run) => run.node !== owner && run.scheduledFor > early[0]!.scheduledFor)
          ? runs
          : null;
      },
      45_000,
      500,
    );
    const instants = taken.map((run) => run.scheduledFor);
    expect(new Set(instants).size, 'an instant fired twice').toBe(instants.length);
    const after = await sched(survivors[1]!, ['add', 'after-failover', '--every', '1h', '--', '/bin/true']);
    expect(after.code, after.stderr).toBe(0);

    const last = survivors[1]!;
    for (const [index, dir] of homes.entries())
      if (dir !== last && ids[index] !== owner) await daemons[index]!.stop('SIGKILL');
    const refused = await sched(last, ['add', 'alone', '--json', '--every', '1h', '--', '/bin/true'], {
      timeoutMs: 60_000,
    });
    expect(refused.code).toBe(7);
    expect(refused.json.error.code).toBe('NO_QUORUM');
    expect(refused.json.error.hint).toMatch(/of 3 voters/);
    const listed = await sched(last, ['ls', '--json']);
    expect(listed.code).toBe(0);
    expect(listed.json.items.map((job: { name: string }) => job.name).sort()).toEqual([
      'after-failover',
      'tick',
    ]);
  }, 150_000);

  it('refuses peer settings that cannot work, with exit 2 and what to do, and leaves no daemon running', async () => {
    const dir = home();
    const keygen = await sched(dir, ['cluster', 'keygen']);
    const keyFile = path.join(dir, 'cluster.key');
    fs.writeFileSync(keyFile, keygen.stdout, { mode: 0o600 });
    const port = await freePeerPort();
    const cases: [string[], RegExp][] = [
      [['--peers', `127.0.0.1:${port}`], /needs --bind/],
      [['--bind', `127.0.0.1:${port}`], /--bind .*is for peer mode/],
      [
        ['--peers', '127.0.0.1:1,127.0.0.1:2', '--bind', `127.0.0.1:${port}`, '--cluster-key-file', keyFile],
        /is not among --peers/,
      ],
      [
        [
          '--peers',
          `127.0.0.1:${port},nonsense`,
          '--bind',
          `127.0.0.1:${port}`,
          '--cluster-key-file',
          keyFile,
        ],
        /--peers must be a list of host:port/,
      ],
      [
        [
          '--peers',
          `127.0.0.1:${port}`,
          '--bind',
          `127.0.0.1:${port}`,
          '--cluster-key-file',
          path.join(dir, 'missing.key'),
        ],
        /cannot be read/,
      ],
      [
        ['--peers', `0.0.0.0:${port}`, '--bind', `0.0.0.0:${port}`, '--cluster-key-file', keyFile],
        /--advertise/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await sched(dir, ['daemon', 'run', '--quiet', ...args], { timeoutMs: 30_000 });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).toMatch(/Hint: /);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    fs.writeFileSync(
      path.join(dir, 'config.toml'),
      `[cluster]\nmode = "peers"\nbind = "127.0.0.1:${port}"\n`,
    );
    const fromConfig = await sched(dir, ['daemon', 'run', '--quiet'], { timeoutMs: 30_000 });
    expect(fromConfig.code, fromConfig.stderr).toBe(2);
    expect(fromConfig.stderr).toMatch(/Peer mode needs --peers/);
    expect((await sched(dir, ['ls'])).code).toBe(7);
  });
});
