import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { installKey, removeKey, useKey } from '../../../src/core/peer/cluster-keyring.js';
import { MessageSeal } from '../../../src/cluster/peer/message-seal.js';
import { SwimDatagrams } from '../../../src/cluster/peer/swim-datagrams.js';
import { waitFor } from '../../support/sched-harness.js';
import { datagramNode, newKey, ping, ring, sendRaw } from './peer-test-kit.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((transport) => transport.close()));
});

async function node(host: string, keys = ring(sharedKey)) {
  const made = await datagramNode(host, keys);
  open.push(made.transport);
  return made;
}

const sharedKey = newKey();

describe('SWIM over UDP', () => {
  it.each(['127.0.0.1', '::1'])(
    'given two nodes on %s, delivers a sealed ping as it was sent',
    async (host) => {
      const [a, b] = [await node(host), await node(host)];
      a.transport.send(ping('a', 'b', 1), b.address);
      const [got] = await waitFor(async () => b.inbox.length > 0 && b.inbox, 5_000, 20);
      expect(got!.message).toEqual(ping('a', 'b', 1));
      expect(got!.from.port).toBe(a.address.port);
    },
  );

  it('given a sender with the wrong key, drops and counts its datagrams and keeps serving the others', async () => {
    const [good, stranger, b] = [
      await node('127.0.0.1'),
      await node('127.0.0.1', ring(newKey())),
      await node('127.0.0.1'),
    ];
    stranger.transport.send(ping('x', 'b', 1), b.address);
    await waitFor(async () => b.transport.dropped.unsealed === 1, 5_000, 20);
    expect(b.seal.rejected).toBe(1);
    good.transport.send(ping('a', 'b', 2), b.address);
    await waitFor(async () => b.inbox.length === 1, 5_000, 20);
    expect(b.inbox.map(({ message }) => message.from)).toEqual(['a']);
  });

  it('given garbage and a datagram over 1,400 bytes, drops both and keeps serving', async () => {
    const [a, b] = [await node('127.0.0.1'), await node('127.0.0.1')];
    await sendRaw(randomBytes(200), b.address);
    await sendRaw(Buffer.alloc(0), b.address);
    await sendRaw(randomBytes(60_000), b.address);
    await waitFor(
      async () => b.transport.dropped.unsealed === 2 && b.transport.dropped.oversize === 1,
      5_000,
      20,
    );
    a.transport.send(ping('a', 'b', 3), b.address);
    await waitFor(async () => b.inbox.length === 1, 5_000, 20);
  });

  it('given a well-sealed message of the wrong shape, refuses it with a reason before it reaches the node', async () => {
    const b = await node('127.0.0.1');
    const peer = new MessageSeal(ring(sharedKey));
    const send = (text: string) => sendRaw(peer.seal(Buffer.from(text), 'swim'), b.address);
    await send(JSON.stringify({ ...ping('a', 'b', 1), seq: 'one' }));
    await send(JSON.stringify(ping('a', 'b', 1)).replace('"seq":1', '"seq":1e999'));
    await send(
      JSON.stringify({ ...ping('a', 'b', 1), updates: [{ id: 'c', incarnation: -1, state: 'alive' }] }),
    );
    // Well sealed, but too large once sealed: the size bound holds before any decoding.
    await send(
      JSON.stringify({
        ...ping('a', 'b', 1),
        updates: Array(70).fill({ id: 'c', incarnation: 0, state: 'alive' }),
      }),
    );
    // Sealed for a TCP stream, replayed as a datagram: the channel is bound into the tag.
    await sendRaw(peer.seal(Buffer.from(JSON.stringify(ping('a', 'b', 1))), 'stream'), b.address);
    await waitFor(async () => b.drops.length === 5, 5_000, 20);
    expect(b.drops).toEqual([
      expect.stringMatching(/^malformed: .*seq: Invalid input: expected number, received string/),
      expect.stringMatching(/^malformed: .*seq: /),
      expect.stringMatching(/^malformed: .*updates\.0\.incarnation: /),
      expect.stringMatching(/^oversize: /),
      expect.stringMatching(/^unsealed: /),
    ]);
    expect(b.inbox).toEqual([]);
  });

  it('given a key rotation done member by member, delivers every message throughout', async () => {
    const [k1, k2] = [sharedKey, newKey()];
    const nodes = [await node('127.0.0.1'), await node('127.0.0.1'), await node('127.0.0.1')];
    let seq = 0;
    const everyoneHearsEveryone = async () => {
      const before = nodes.map((n) => n.inbox.length);
      for (const from of nodes)
        for (const to of nodes) if (from !== to) from.transport.send(ping('n', 'n', ++seq), to.address);
      await waitFor(async () => nodes.every((n, index) => n.inbox.length === before[index]! + 2), 5_000, 20);
    };
    await everyoneHearsEveryone();
    for (const n of nodes) n.seal.rekey(installKey(n.seal.keyring, k2));
    await everyoneHearsEveryone();
    nodes[0]!.seal.rekey(useKey(nodes[0]!.seal.keyring, k2));
    await everyoneHearsEveryone();
    for (const n of nodes.slice(1)) n.seal.rekey(useKey(n.seal.keyring, k2));
    await everyoneHearsEveryone();
    for (const n of nodes) n.seal.rekey(removeKey(n.seal.keyring, k1));
    await everyoneHearsEveryone();
    expect(nodes.map((n) => n.seal.keyring.keys)).toEqual([[k2], [k2], [k2]]);
    expect(nodes.map((n) => n.seal.rejected)).toEqual([0, 0, 0]);

    const stale = await node('127.0.0.1', ring(k1));
    stale.transport.send(ping('old', 'n', ++seq), nodes[0]!.address);
    await waitFor(async () => nodes[0]!.seal.rejected === 1, 5_000, 20);
  });
});

describe('a failing handler', () => {
  it('given a handler that throws, counts it and goes on receiving', async () => {
    const a = await node('127.0.0.1');
    const seen: number[] = [];
    const b = await SwimDatagrams.open({
      bind: { host: '127.0.0.1', port: 0 },
      seal: new MessageSeal(ring(sharedKey)),
      onMessage: (message) => {
        seen.push(message.type === 'ping' ? message.seq : -1);
        if (seen.length === 1) throw new Error('a bug in the handler');
      },
    });
    open.push(b);
    a.transport.send(ping('a', 'b', 1), b.address());
    await waitFor(async () => b.dropped['handler-failed'] === 1, 5_000, 20);
    a.transport.send(ping('a', 'b', 2), b.address());
    await waitFor(async () => seen.length === 2, 5_000, 20);
    expect(seen).toEqual([1, 2]);
  });
});

describe('binding', () => {
  it('given a port already taken, refuses to open with the system error', async () => {
    const a = await node('127.0.0.1');
    await expect(datagramNode('127.0.0.1', ring(sharedKey), a.address.port)).rejects.toThrow(/EADDRINUSE/);
  });
});
