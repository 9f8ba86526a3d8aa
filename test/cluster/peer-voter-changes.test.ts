import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePeerPort, peerStatus, startPeerDaemons, type PeerDaemons } from '../support/peer-daemons.js';
import { sched, useDaemons, waitFor } from '../support/sched-harness.js';

interface NodeRow {
  id: string;
  shards: number;
}

interface AuditRow {
  action: string;
  actor: string;
  after: { voters?: string[]; member?: string };
}

const LONG = { timeoutMs: 90_000 };

/** The flags node `index` runs with besides its role (`--peers` or `--join`): its address and the key. */
function flagsOf(hosts: PeerDaemons, index: number): string[] {
  return ['--bind', hosts.ids[index]!, '--cluster-key-file', hosts.keyFile];
}

describe('peer mode: growing, shrinking and recovering a cluster of real daemons', () => {
  const { home, start } = useDaemons(afterEach);

  /** A new host for `hosts`' cluster: a home with its secret key, and a free address (added to `hosts`). */
  async function newHost(hosts: PeerDaemons): Promise<{ home: string; id: string }> {
    const dir = home();
    fs.copyFileSync(path.join(hosts.homes[0]!, 'secret.key'), path.join(dir, 'secret.key'));
    const id = `127.0.0.1:${await freePeerPort()}`;
    hosts.homes.push(dir);
    hosts.ids.push(id);
    return { home: dir, id };
  }

  /** Waits until `dir`'s daemon says the voters are `voters` (in any order) and a leader is known. */
  async function votersOn(dir: string, voters: string[]) {
    return waitFor(
      async () => {
        const status = await peerStatus(dir);
        const same = JSON.stringify(status.peers.voters) === JSON.stringify([...voters].sort());
        return same && status.peers.leader !== null ? status : null;
      },
      30_000,
      200,
    );
  }

  async function auditActions(dir: string): Promise<AuditRow[]> {
    const audit = await sched(dir, ['audit', '--json', '--limit', '200']);
    expect(audit.code, audit.stderr).toBe(0);
    return audit.json.items as AuditRow[];
  }

  it('given three voters, a fourth daemon started with --join follows the log without voting, `cluster join` makes it a voter that holds the earlier jobs and gets shards, and `cluster leave` takes another out while the cluster keeps writing', async () => {
    const hosts = await startPeerDaemons(3, home, start);
    const [first, second, third] = hosts.homes as [string, string, string];
    await votersOn(first, hosts.ids);
    const before = await sched(first, ['add', 'before-join', '--every', '1h', '--', '/bin/true']);
    expect(before.code, before.stderr).toBe(0);

    const joiner = await newHost(hosts);
    await start(joiner.home, ['--join', hosts.ids[0]!, ...flagsOf(hosts, 3)]);
    // A learner: it gets the log, and with it the jobs, but neither votes nor fires.
    await waitFor(async () => (await sched(joiner.home, ['show', 'before-join'])).code === 0, 30_000, 200);
    const learning = await peerStatus(joiner.home);
    expect(learning.peers.voting).toBe(false);
    expect(learning.peers.voters).toEqual([...hosts.ids.slice(0, 3)].sort());
    expect(learning.nodes.find((node: NodeRow) => node.id === joiner.id).shards).toBe(0);

    const joined = await sched(second, ['cluster', 'join', joiner.id, '--json'], LONG);
    expect(joined.code, joined.stderr).toBe(0);
    expect(joined.json.voters).toEqual([...hosts.ids].sort());
    const four = await votersOn(joiner.home, hosts.ids);
    expect(four.peers.voting).toBe(true);
    await waitFor(
      async () => {
        const status = await peerStatus(first);
        return status.nodes.find((node: NodeRow) => node.id === joiner.id)?.shards > 0;
      },
      30_000,
      200,
    );
    const fromNew = await sched(joiner.home, ['add', 'added-on-new', '--every', '1h', '--', '/bin/true']);
    expect(fromNew.code, fromNew.stderr).toBe(0);
    expect((await sched(third, ['show', 'added-on-new'])).code).toBe(0);

    const left = await sched(first, ['cluster', 'leave', hosts.ids[1]!, '--json'], LONG);
    expect(left.code, left.stderr).toBe(0);
    const remaining = [hosts.ids[0]!, hosts.ids[2]!, joiner.id];
    expect(left.json.voters).toEqual([...remaining].sort());
    await votersOn(third, remaining);
    // It stops voting at once, and the leader's next map (within a second) gives it no shards.
    await waitFor(async () => {
      const status = await peerStatus(second);
      const own = status.nodes.find((node: NodeRow) => node.id === hosts.ids[1]);
      return status.peers.voting === false && own.shards === 0;
    });
    await waitFor(async () => {
      const status = await peerStatus(first);
      return !status.nodes.some((node: NodeRow) => node.id === hosts.ids[1]) && status.unassignedShards === 0;
    });
    await hosts.daemons[1]!.stop('SIGKILL');
    const after = await sched(third, ['add', 'after-leave', '--every', '1h', '--', '/bin/true'], LONG);
    expect(after.code, after.stderr).toBe(0);

    const audited = (await auditActions(first)).filter((entry) => entry.action.startsWith('cluster.'));
    expect(audited.map((entry) => [entry.action, entry.after.member])).toEqual([
      ['cluster.leave', hosts.ids[1]],
      ['cluster.join', joiner.id],
    ]);
  }, 150_000);

  it('given a node that joined (asking on itself), restarted with the flags it was first started with, takes the voters from its log', async () => {
    const hosts = await startPeerDaemons(2, home, start);
    await votersOn(hosts.homes[0]!, hosts.ids);
    const joiner = await newHost(hosts);
    const learner = await start(joiner.home, ['--join', hosts.ids[0]!, ...flagsOf(hosts, 2)]);
    const joined = await sched(joiner.home, ['cluster', 'join', joiner.id], LONG);
    expect(joined.code, joined.stderr).toBe(0);
    await votersOn(joiner.home, hosts.ids);

    await learner.stop('SIGTERM');
    await start(joiner.home, ['--join', hosts.ids[0]!, ...flagsOf(hosts, 2)]);
    await hosts.daemons[0]!.stop('SIGTERM');
    // Started again with --peers naming the first two only: the log's three voters rule.
    await start(hosts.homes[0]!, ['--peers', hosts.ids.slice(0, 2).join(','), ...flagsOf(hosts, 0)]);

    for (const dir of [joiner.home, hosts.homes[0]!]) {
      const status = await votersOn(dir, hosts.ids);
      expect(status.peers.voting).toBe(true);
    }
    const added = await sched(
      joiner.home,
      ['add', 'after-restarts', '--every', '1h', '--', '/bin/true'],
      LONG,
    );
    expect(added.code, added.stderr).toBe(0);
  }, 150_000);

  it('given bad input, join, leave and recover refuse with what was wrong and what to do, and change nothing', async () => {
    const port = await freePeerPort();
    const self = `127.0.0.1:${port}`;
    const dir = home();
    const keygen = await sched(dir, ['cluster', 'keygen']);
    const keyFile = path.join(dir, 'cluster.key');
    fs.writeFileSync(keyFile, keygen.stdout, { mode: 0o600 });
    await start(dir, ['--peers', self, '--bind', self, '--cluster-key-file', keyFile]);
    await votersOn(dir, [self]);
    const nobody = `127.0.0.1:${await freePeerPort()}`;

    const cases: [string[], number, string, RegExp][] = [
      [['cluster', 'join', 'not-an-address'], 2, 'VALIDATION_FAILED', /is not a peer address/],
      [['cluster', 'leave', '10.0.0.1'], 2, 'VALIDATION_FAILED', /is not a peer address/],
      [['cluster', 'join', self], 4, 'INVALID_STATE', /already a voter/],
      [['cluster', 'join', nobody], 4, 'INVALID_STATE', /not alive as gossip sees it/],
      [['cluster', 'leave', nobody], 4, 'INVALID_STATE', /is not a voter of this cluster/],
      [['cluster', 'leave'], 4, 'INVALID_STATE', /is the last voter/],
      [
        ['cluster', 'recover', '--voters', self],
        2,
        'VALIDATION_FAILED',
        /without --force; nothing was changed/,
      ],
      [['cluster', 'recover', '--force', '--voters', self], 4, 'DAEMON_ALREADY_RUNNING', /is running/],
    ];
    for (const [args, exit, code, message] of cases) {
      const result = await sched(dir, [...args, '--json'], LONG);
      expect(result.code, `${args.join(' ')}: ${result.stdout}`).toBe(exit);
      expect(result.json.error.code).toBe(code);
      expect(result.json.error.message).toMatch(message);
      expect(result.json.error.hint ?? '', args.join(' ')).not.toBe('');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    const status = await peerStatus(dir);
    expect([status.peers.voters, status.peers.voting]).toEqual([[self], true]);
    expect((await auditActions(dir)).filter((entry) => entry.action.startsWith('cluster.'))).toEqual([]);

    const startedAtItself = await sched(
      home(),
      ['daemon', 'run', '--quiet', '--join', nobody, '--bind', nobody, '--cluster-key-file', keyFile],
      { timeoutMs: 30_000 },
    );
    expect(startedAtItself.code).toBe(2);
    expect(startedAtItself.stderr).toMatch(/--join names this node itself/);
    const both = await sched(
      home(),
      [
        'daemon',
        'run',
        '--quiet',
        '--peers',
        nobody,
        '--join',
        self,
        '--bind',
        nobody,
        '--cluster-key-file',
        keyFile,
      ],
      { timeoutMs: 30_000 },
    );
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--peers and --join .* do not go together/);
  }, 90_000);

  it('given three voters of which two are killed for good, the survivor recovered with --force elects itself and takes writes, after a loud warning', async () => {
    const hosts = await startPeerDaemons(3, home, start);
    const survivor = hosts.homes[0]!;
    await votersOn(survivor, hosts.ids);
    expect((await sched(survivor, ['add', 'before-loss', '--every', '1h', '--', '/bin/true'])).code).toBe(0);
    await hosts.daemons[1]!.stop('SIGKILL');
    await hosts.daemons[2]!.stop('SIGKILL');
    const refused = await sched(
      survivor,
      ['add', 'no-majority', '--json', '--every', '1h', '--', '/bin/true'],
      LONG,
    );
    expect(refused.json.error.code).toBe('NO_QUORUM');

    await hosts.daemons[0]!.stop('SIGTERM');
    const recovered = await sched(survivor, [
      'cluster',
      'recover',
      '--force',
      '--voters',
      hosts.ids[0]!,
      '--json',
    ]);
    expect(recovered.code, recovered.stderr).toBe(0);
    expect(recovered.json).toMatchObject({ node: hosts.ids[0], voters: [hosts.ids[0]] });
    expect(recovered.stderr).toMatch(/WARNING: forcing the voters.*may be lost.*must never be started again/);
    const daemon = await start(survivor, ['--peers', hosts.ids.join(','), ...flagsOf(hosts, 0)]);

    const added = await sched(survivor, ['add', 'after-recovery', '--every', '1h', '--', '/bin/true'], LONG);
    expect(added.code, added.stderr).toBe(0);
    const status = await votersOn(survivor, [hosts.ids[0]!]);
    expect(status.peers.leader).toBe(hosts.ids[0]);
    expect((await sched(survivor, ['show', 'before-loss'])).code).toBe(0);
    expect(daemon.output()).toMatch(
      /"event":"cluster:forced".*writes committed only on lost nodes may be lost/,
    );
    await waitFor(async () =>
      (await auditActions(survivor)).some(
        (entry) => entry.action === 'cluster.recover' && entry.after.voters?.[0] === hosts.ids[0],
      ),
    );
  }, 150_000);
});
