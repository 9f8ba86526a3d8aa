import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readClusterKeyFile } from '../../src/cluster/peer/cluster-key-file.js';
import { frame } from '../../src/cluster/peer/frame-reader.js';
import { MessageSeal } from '../../src/cluster/peer/message-seal.js';
import { parsePeerAddress } from '../../src/core/peer/peer-address.js';
import {
  freePeerPort,
  leaderAgreed,
  newClusterKeyFile,
  peerDrops,
  peerStatus,
  startPeerDaemons,
  WITH_METRICS,
} from '../support/peer-daemons.js';
import { isAlive, sched, sleep, useDaemons, waitFor } from '../support/sched-harness.js';
import { rawClient, sendRaw, sendTenMegabyteFrame } from './peer/peer-test-kit.js';

/** Datagrams of one malformed kind sent in a burst. */
const FLOOD = 200;

/** What the unit tests in peer/ check of each transport, here at a running daemon's port, counted in /metrics. */
describe('peer mode: traffic that does not belong to the cluster', () => {
  const harness = useDaemons(afterEach);

  it('Given three peers, when a fourth node starts with another key, then it never joins: no member sees it, it never leads or holds a job, it waits for a majority it cannot reach (and stops cleanly when asked), and the drop counter rises', async () => {
    const { homes, ids, daemons } = await startPeerDaemons(3, harness.home, harness.start, WITH_METRICS);
    await leaderAgreed(homes);
    const added = await sched(homes[0]!, ['add', 'members-only', '--every', '1h', '--', '/bin/true']);
    expect(added.code, added.stderr).toBe(0);
    const stranger = harness.home();
    const strangerId = `127.0.0.1:${await freePeerPort()}`;
    const wrongKey = path.join(stranger, 'cluster.key');
    await newClusterKeyFile(stranger, wrongKey);
    fs.copyFileSync(path.join(homes[0]!, 'secret.key'), path.join(stranger, 'secret.key'));
    const firstDrops = await peerDrops(daemons[0]!);

    // It cannot start without a majority (a start writes through the log): it waits, watched meanwhile.
    const attempt = harness.launch(stranger, [
      ...['--peers', [...ids, strangerId].join(','), '--bind', strangerId],
      ...['--cluster-key-file', wrongKey],
    ]);
    for (let round = 0; !attempt.output().includes('"cluster:waiting"') || round < 3; round += 1) {
      expect(round, attempt.output()).toBeLessThan(60);
      for (const dir of homes) {
        const seen = await peerStatus(dir);
        expect(seen.peers.members.map((member: { id: string }) => member.id)).not.toContain(strangerId);
        expect(seen.nodes.map((node: { id: string }) => node.id)).not.toContain(strangerId);
        expect(seen.peers.leader).not.toBe(strangerId);
      }
      await sleep(1_000);
    }
    expect(attempt.process.exitCode).toBeNull();
    expect(await attempt.stop('SIGTERM')).toBe(0);

    // What it "sees" is its gossip: members it has not probed yet count as seen.
    expect(attempt.output()).toMatch(/waiting for a majority of the voters .*it sees \d of 4 voters/);
    expect(attempt.output()).not.toContain('"daemon:started"');
    const copy = new Database(path.join(stranger, 'sched.db'), { readonly: true });
    expect(copy.prepare('SELECT name FROM jobs').all()).toEqual([]);
    copy.close();
    const lastDrops = await peerDrops(daemons[0]!);
    expect(lastDrops['datagram/no-key-opens'] ?? 0).toBeGreaterThan(firstDrops['datagram/no-key-opens'] ?? 0);
    expect(lastDrops['stream/no-key-opens'] ?? 0).toBeGreaterThan(firstDrops['stream/no-key-opens'] ?? 0);
    expect(await leaderAgreed(homes)).not.toBe(strangerId);
  }, 120_000);

  it('Given a peer daemon, when a 10 MB frame, the largest datagram and garbage of every kind reach its port, then each is dropped and counted by reason, and the cluster goes on', async () => {
    const { homes, ids, keyFiles, daemons } = await startPeerDaemons(
      3,
      harness.home,
      harness.start,
      WITH_METRICS,
    );
    await leaderAgreed(homes);
    const target = parsePeerAddress(ids[0]!);
    // A holder of the key who sends what no member would: it opens, and then does not decode.
    const insider = new MessageSeal(readClusterKeyFile(keyFiles[0]!));

    await sendRaw(Buffer.alloc(65_507, 1), target);
    await sendRaw(Buffer.alloc(0), target);
    await sendRaw(Buffer.from([1, 2, 3]), target);
    // A flood of one kind: every datagram is counted, while the log says so a line or two, not 200.
    for (let sent = 0; sent < FLOOD; sent += 1) await sendRaw(Buffer.from([1, 2, 3]), target);
    await sendRaw(Buffer.concat([Buffer.from([9]), randomBytes(100)]), target);
    await sendRaw(Buffer.concat([Buffer.from([1]), randomBytes(100)]), target);
    await sendRaw(insider.seal(Buffer.from('not a swim message'), 'swim'), target);
    await sendTenMegabyteFrame(target);
    for (const garbage of [
      Buffer.from('GET / HTTP/1.1\r\nHost: sched\r\n\r\n'),
      frame(Buffer.from([1, 2, 3])),
      frame(Buffer.concat([Buffer.from([1]), randomBytes(200)])),
    ]) {
      const { socket, closed } = await rawClient(target);
      socket.write(garbage);
      await closed;
    }

    const drops = await waitFor(
      async () => {
        const counted = await peerDrops(daemons[0]!);
        return (counted['stream/no-key-opens'] ?? 0) >= 1 && (counted['datagram/malformed'] ?? 0) >= 1
          ? counted
          : null;
      },
      10_000,
      200,
    );
    expect(drops).toMatchObject({
      'datagram/oversized': 1,
      'datagram/too-short': 2 + FLOOD,
      'datagram/unknown-version': 1,
      'datagram/no-key-opens': 1,
      'datagram/malformed': 1,
      'stream/oversized': 2,
      'stream/too-short': 1,
      'stream/no-key-opens': 1,
    });
    expect(isAlive(daemons[0]!.pid)).toBe(true);
    const seen = await peerStatus(homes[0]!);
    expect(seen.peers.members.map((member: { state: string }) => member.state)).toEqual([
      'alive',
      'alive',
      'alive',
    ]);
    const added = await sched(homes[0]!, ['add', 'after-garbage', '--every', '1h', '--', '/bin/true']);
    expect(added.code, added.stderr).toBe(0);
    await waitFor(async () => (await sched(homes[2]!, ['show', 'after-garbage'])).code === 0, 10_000, 200);
    expect(daemons[0]!.output()).toMatch(/"event":"peer:dropped".*"reason":"oversized"/);
    const tooShortLines = daemons[0]!
      .output()
      .split('\n')
      .filter((line) => line.includes('"event":"peer:dropped"') && line.includes('"reason":"too-short"'));
    expect(tooShortLines.length).toBeGreaterThanOrEqual(1);
    expect(tooShortLines.length).toBeLessThanOrEqual(3);
  }, 120_000);
});
