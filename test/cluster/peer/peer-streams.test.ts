import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { raftWire } from '../../../src/core/consensus/raft-wire.js';
import type { RaftMessage } from '../../../src/core/consensus/raft-messages.js';
import type { ClusterKeyring } from '../../../src/core/peer/cluster-keyring.js';
import { frame } from '../../../src/cluster/peer/frame-reader.js';
import { MessageSeal } from '../../../src/cluster/peer/message-seal.js';
import { PeerStreams } from '../../../src/cluster/peer/peer-streams.js';
import type { PeerAddress } from '../../../src/core/peer/peer-address.js';
import { systemClock } from '../../../src/daemon/clock.js';
import { waitFor } from '../../support/sched-harness.js';
import { newKey, rawClient, ring, sendTenMegabyteFrame } from './peer-test-kit.js';

const wire = raftWire(z.string().max(100).nullable(), z.null());
const sharedKey = newKey();
const open: PeerStreams[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((streams) => streams.close()));
});

async function node(
  host: string,
  keys: ClusterKeyring = ring(sharedKey),
  port = 0,
  maxQueuedFrames?: number,
  proveWithinMs?: number,
) {
  const inbox: RaftMessage<string | null, null>[] = [];
  const drops: string[] = [];
  const seal = new MessageSeal(keys);
  const streams = await PeerStreams.open({
    bind: { host, port },
    seal,
    clock: systemClock,
    random: Math.random,
    maxQueuedFrames,
    proveWithinMs,
    onDrop: (reason, detail) => drops.push(`${reason}: ${detail}`),
  });
  open.push(streams);
  streams.handle('raft', (body) => {
    const decoded = wire.decode(body);
    if (decoded.ok) inbox.push(decoded.message);
    else drops.push(`malformed: ${decoded.reason}`);
  });
  const send = (to: PeerAddress, message: RaftMessage<string | null, null>) =>
    streams.send(to, 'raft', wire.encode(message));
  return { streams, seal, inbox, drops, send, address: streams.address() };
}

const append = (term: number, data: string | null = 'add job'): RaftMessage<string | null, null> => ({
  type: 'append',
  from: 'a',
  to: 'b',
  term,
  prevLogIndex: 0,
  prevLogTerm: 0,
  entries: [{ index: 1, term, data }],
  leaderCommit: 0,
});

describe('Raft over TCP', () => {
  it.each(['127.0.0.1', '::1'])(
    'given two nodes on %s, delivers sealed messages in order on one connection',
    async (host) => {
      const [a, b] = [await node(host), await node(host)];
      for (let term = 1; term <= 50; term++) a.send(b.address, append(term));
      await waitFor(async () => b.inbox.length === 50, 5_000, 20);
      expect(b.inbox.map((message) => message.term)).toEqual(
        Array.from({ length: 50 }, (_, index) => index + 1),
      );
      expect(b.inbox[0]).toEqual(append(1));
      b.send(a.address, { type: 'append-response', from: 'b', to: 'a', term: 50, success: true, index: 1 });
      await waitFor(async () => a.inbox.length === 1, 5_000, 20);
    },
  );

  it('given a frame near the 4 MB bound, delivers it whole', async () => {
    const [a, b] = [await node('127.0.0.1'), await node('127.0.0.1')];
    const big = {
      ...append(1),
      entries: Array.from({ length: 4_000 }, (_, index) => ({
        index: index + 1,
        term: 1,
        data: 'x'.repeat(100),
      })),
    };
    a.send(b.address, big);
    await waitFor(async () => b.inbox.length === 1, 10_000, 20);
    expect(b.inbox[0]).toEqual(big);
  });

  it('given a peer with the wrong key, drops its frame, closes its connection and keeps serving the others', async () => {
    const [good, stranger, b] = [
      await node('127.0.0.1'),
      await node('127.0.0.1', ring(newKey())),
      await node('127.0.0.1'),
    ];
    stranger.send(b.address, append(1));
    await waitFor(async () => b.streams.dropped.unsealed === 1, 5_000, 20);
    good.send(b.address, append(2));
    await waitFor(async () => b.inbox.length === 1, 5_000, 20);
    expect(b.inbox[0]!.term).toBe(2);
    expect(b.seal.rejected).toBe(1);
  });

  it('given a 10 MB length prefix and body, closes the connection before buffering it and keeps serving', async () => {
    const [a, b] = [await node('127.0.0.1'), await node('127.0.0.1')];
    await sendTenMegabyteFrame(b.address);
    expect(b.drops).toEqual([expect.stringMatching(/^too-large: 10485760 bytes from 127\.0\.0\.1:/)]);
    a.send(b.address, append(1));
    await waitFor(async () => b.inbox.length === 1, 5_000, 20);
  });

  it('given garbage on a connection, closes it and keeps serving', async () => {
    const [a, b] = [await node('127.0.0.1'), await node('127.0.0.1')];
    const { socket, closed } = await rawClient(b.address);
    socket.write(frame(Buffer.from('not sealed at all, just some bytes')));
    await closed;
    expect(b.streams.dropped.unsealed).toBe(1);
    a.send(b.address, append(1));
    await waitFor(async () => b.inbox.length === 1, 5_000, 20);
  });

  it('given a well-sealed frame of the wrong shape or topic, it never reaches a handler as a message', async () => {
    const b = await node('127.0.0.1');
    const peer = new MessageSeal(ring(sharedKey));
    const { socket } = await rawClient(b.address);
    const sealedFrame = (topic: number, value: unknown) =>
      frame(peer.seal(Buffer.concat([Uint8Array.of(topic), Buffer.from(JSON.stringify(value))]), 'stream'));
    socket.write(sealedFrame(1, { ...append(1), term: 'three' }));
    socket.write(
      sealedFrame(1, { ...append(1), entries: Array(5_000).fill({ index: 1, term: 1, data: null }) }),
    );
    socket.write(sealedFrame(9, append(1)));
    await waitFor(async () => b.drops.length === 3, 5_000, 20);
    expect(b.drops).toEqual([
      expect.stringMatching(/^malformed: term: /),
      expect.stringMatching(/^malformed: entries: /),
      expect.stringMatching(/^unrouted: topic 9 from 127\.0\.0\.1:/),
    ]);
    expect(b.inbox).toEqual([]);
    socket.destroy();
  });

  it('given a peer not listening yet, queues a bounded number of frames and delivers them once it is up', async () => {
    const spare = net.createServer();
    await new Promise<void>((resolve) => spare.listen(0, '127.0.0.1', resolve));
    const port = (spare.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => spare.close(() => resolve()));

    const a = await node('127.0.0.1', ring(sharedKey), 0, 3);
    const later = { host: '127.0.0.1', port };
    expect([1, 2, 3, 4].map((term) => a.send(later, append(term)))).toEqual([true, true, true, false]);
    expect(a.streams.dropped['queue-full']).toBe(1);
    const b = await node('127.0.0.1', ring(sharedKey), port);
    await waitFor(async () => b.inbox.length === 3, 15_000, 50);
    expect(b.inbox.map((message) => message.term)).toEqual([1, 2, 3]);
  });

  it('given a connection that fails, numbers the next one afresh, so a sender knows frames it wrote may be lost', async () => {
    const a = await node('127.0.0.1');
    const b = await node('127.0.0.1');
    expect(a.streams.connectionTo(b.address)).toBe(0);
    a.send(b.address, append(1));
    await waitFor(async () => b.inbox.length === 1, 15_000, 20);
    expect(a.streams.connectionTo(b.address)).toBe(0);

    await b.streams.close();

    await waitFor(async () => a.streams.connectionTo(b.address) > 0, 15_000, 20);
  });

  it('given a key rotation done member by member, delivers every frame throughout', async () => {
    const k2 = newKey();
    const [a, b] = [await node('127.0.0.1'), await node('127.0.0.1')];
    const { installKey, useKey, removeKey } = await import('../../../src/core/peer/cluster-keyring.js');
    let term = 0;
    const both = async () => {
      const [beforeA, beforeB] = [a.inbox.length, b.inbox.length];
      a.send(b.address, append(++term));
      b.send(a.address, append(++term));
      await waitFor(async () => a.inbox.length === beforeA + 1 && b.inbox.length === beforeB + 1, 5_000, 20);
    };
    await both();
    for (const n of [a, b]) n.seal.rekey(installKey(n.seal.keyring, k2));
    await both();
    a.seal.rekey(useKey(a.seal.keyring, k2));
    await both();
    b.seal.rekey(useKey(b.seal.keyring, k2));
    await both();
    for (const n of [a, b]) n.seal.rekey(removeKey(n.seal.keyring, sharedKey));
    await both();
    expect([a.seal.rejected, b.seal.rejected]).toEqual([0, 0]);
  });

  it('given a port already taken, refuses to listen with the system error', async () => {
    const a = await node('127.0.0.1');
    await expect(node('127.0.0.1', ring(sharedKey), a.address.port)).rejects.toThrow(/EADDRINUSE/);
  });

  it('given a connection that sends nothing that opens, closes it once its time to prove the key is up', async () => {
    const b = await node('127.0.0.1', ring(sharedKey), 0, undefined, 500);
    const { closed } = await rawClient(b.address);
    await closed;
    expect(b.drops).toEqual([expect.stringMatching(/^unproven: from 127\.0\.0\.1:/)]);
  });

  it('given a peer that only ever receives on a link, keeps the link open past the time to prove the key', async () => {
    const a = await node('127.0.0.1', ring(sharedKey), 0, undefined, 300);
    const b = await node('127.0.0.1', ring(sharedKey), 0, undefined, 300);
    a.send(b.address, append(1));
    await waitFor(async () => b.inbox.length === 1, 10_000, 20);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    a.send(b.address, append(2));
    await waitFor(async () => b.inbox.length === 2, 10_000, 20);
    expect(a.drops).toEqual([]);
    expect(b.drops).toEqual([]);
  });

  it('given a first frame over 1 kB before anything has opened, closes the connection without reading it', async () => {
    const b = await node('127.0.0.1');
    const { socket, closed } = await rawClient(b.address);
    socket.write(frame(Buffer.alloc(2_000)));
    await closed;
    expect(b.drops).toEqual([expect.stringMatching(/^too-large: 2000 bytes from /)]);
  });
});
