import { afterEach, describe, expect, it } from 'vitest';
import {
  installKey,
  removeKey,
  useKey,
  type ClusterKeyring,
} from '../../../src/core/peer/cluster-keyring.js';
import type { PeerAddress } from '../../../src/core/peer/peer-address.js';
import { MessageSeal } from '../../../src/cluster/peer/message-seal.js';
import { PeerStreams } from '../../../src/cluster/peer/peer-streams.js';
import { SwimMembership, type SwimTiming } from '../../../src/cluster/peer/swim-membership.js';
import { systemClock } from '../../../src/daemon/clock.js';
import { sleep, waitFor } from '../../support/sched-harness.js';
import { newKey, ring } from './peer-test-kit.js';

// A probe every 200 ms and a second of suspicion: a test-sized version of the defaults.
const FAST: SwimTiming = {
  tickMs: 50,
  probeTicks: 4,
  ackTimeoutTicks: 2,
  suspicionMultiplier: 5,
  indirectProbes: 2,
  pushPullMs: 60_000,
};
// A probe period of 10 s: whatever a member learns within a second or two, it learnt by push-pull.
const SLOW_PROBES: SwimTiming = { ...FAST, probeTicks: 200, ackTimeoutTicks: 100, suspicionMultiplier: 2 };
const sharedKey = newKey();
const running: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((member) => member.stop()));
});

async function member(
  seeds: PeerAddress[],
  keys: ClusterKeyring = ring(sharedKey),
  options: { timing?: SwimTiming; streams?: boolean; load?: () => number } = {},
) {
  const errors: Error[] = [];
  const seal = new MessageSeal(keys);
  // The datagrams take the streams' port number; another socket may hold that UDP port, so try again.
  for (let attempt = 1; ; attempt++) {
    const streams = options.streams
      ? await PeerStreams.open({
          bind: { host: '127.0.0.1', port: 0 },
          seal,
          clock: systemClock,
          random: Math.random,
        })
      : undefined;
    try {
      const started = await SwimMembership.start({
        bind: { host: '127.0.0.1', port: 0 },
        seeds,
        seal,
        clock: systemClock,
        timing: options.timing ?? FAST,
        streams,
        load: options.load,
        onError: (error) => errors.push(error),
      });
      running.push(started);
      if (streams) running.push({ stop: () => streams.close() });
      return { member: started, errors, seal, address: addressOf(started) };
    } catch (error) {
      await streams?.close();
      if (attempt === 5) throw error;
    }
  }
}

function addressOf(started: SwimMembership): PeerAddress {
  const [host, port] = started.id.split(':');
  return { host: host!, port: Number(port) };
}

const alive = (viewer: SwimMembership) =>
  viewer
    .view()
    .filter((update) => update.state === 'alive')
    .map((update) => update.id)
    .sort();

describe('SWIM membership on real sockets', () => {
  it('given three members that know only the first, all see all alive, then see a stopped one dead within seconds', async () => {
    const a = await member([]);
    const b = await member([a.address]);
    const c = await member([a.address]);
    const everyone = [a, b, c].map(({ member: m }) => m.id).sort();
    await waitFor(
      async () => [a, b, c].every(({ member: m }) => alive(m).join() === everyone.join()),
      15_000,
      50,
    );

    await c.member.stop();
    const stoppedAt = Date.now();
    await waitFor(
      async () => a.member.stateOf(c.member.id) === 'dead' && b.member.stateOf(c.member.id) === 'dead',
      15_000,
      50,
    );
    expect(Date.now() - stoppedAt).toBeLessThan(15_000);
    expect(alive(a.member)).toEqual([a.member.id, b.member.id].sort());
    expect([...a.errors, ...b.errors, ...c.errors]).toEqual([]);
  });

  it('given members that gossip, each knows when it last heard from the others and how many runs they said they run, and a stopped one falls silent', async () => {
    const a = await member([], ring(sharedKey), { load: () => 0 });
    const b = await member([a.address], ring(sharedKey), { load: () => 2 });
    const heard = await waitFor(async () => a.member.contactOf(b.member.id) ?? null, 15_000, 50);
    expect(heard.load).toBe(2);
    expect(Date.now() - heard.heardAt).toBeLessThan(5_000);
    await waitFor(async () => b.member.contactOf(a.member.id)?.load === 0, 15_000, 50);

    await b.member.stop();
    await sleep(500); // what b sent before it stopped has arrived by now
    const last = a.member.contactOf(b.member.id)!.heardAt;
    await sleep(2_000);
    expect(a.member.contactOf(b.member.id)!.heardAt).toBe(last);
  });

  it('given a member with the wrong key, it never joins, and the others stay alive to each other', async () => {
    const a = await member([]);
    const b = await member([a.address]);
    const stranger = await member([a.address, b.address], ring(newKey()));
    await waitFor(async () => alive(a.member).length === 2 && alive(b.member).length === 2, 15_000, 50);
    // Long enough for the stranger to have probed both many times over.
    await waitFor(async () => stranger.member.stateOf(a.member.id) === 'dead', 15_000, 50);
    expect(a.member.stateOf(stranger.member.id)).toBeUndefined();
    expect(b.member.stateOf(stranger.member.id)).toBeUndefined();
    expect(alive(a.member)).toEqual([a.member.id, b.member.id].sort());
  });

  it('given push-pull over streams, a newcomer knows every member at once, and they know it', async () => {
    const withStreams = { timing: SLOW_PROBES, streams: true };
    const a = await member([], ring(sharedKey), withStreams);
    const b = await member([a.address], ring(sharedKey), withStreams);
    const c = await member([a.address], ring(sharedKey), withStreams);
    const everyone = [a, b, c].map(({ member: m }) => m.id).sort();
    await waitFor(async () => alive(a.member).join() === everyone.join(), 3_000, 20);

    const d = await member([a.address], ring(sharedKey), withStreams);
    await waitFor(async () => alive(d.member).length === 4 && alive(a.member).length === 4, 3_000, 20);
    expect(alive(d.member)).toEqual([...everyone, d.member.id].sort());
    expect([...a.errors, ...b.errors, ...c.errors, ...d.errors]).toEqual([]);
  });

  it('given two members that held each other dead while they could not hear each other, both see the other alive soon after they can again', async () => {
    const timing = { ...FAST, reconnectMs: 300 };
    const a = await member([], ring(sharedKey), { streams: true, timing });
    const b = await member([a.address], ring(sharedKey), { streams: true, timing });
    const both = [a.member.id, b.member.id].sort().join();
    await waitFor(async () => alive(a.member).join() === both && alive(b.member).join() === both, 15_000, 50);

    // Each seals with a key the other does not hold: nothing one sends opens at the other.
    a.seal.rekey(ring(newKey()));
    b.seal.rekey(ring(newKey()));
    await waitFor(
      async () => a.member.stateOf(b.member.id) === 'dead' && b.member.stateOf(a.member.id) === 'dead',
      15_000,
      50,
    );
    a.seal.rekey(ring(sharedKey));
    b.seal.rekey(ring(sharedKey));

    await waitFor(async () => alive(a.member).join() === both && alive(b.member).join() === both, 15_000, 50);
  });

  it('given a key rotation member by member while they gossip, no member is ever suspected and nothing is refused', async () => {
    const a = await member([], ring(sharedKey), { streams: true });
    const b = await member([a.address], ring(sharedKey), { streams: true });
    const c = await member([a.address], ring(sharedKey), { streams: true });
    const all = [a, b, c];
    const everyone = all.map(({ member: m }) => m.id).sort();
    await waitFor(async () => all.every(({ member: m }) => alive(m).join() === everyone.join()), 15_000, 50);

    const doubts: string[] = [];
    const watch = setInterval(() => {
      for (const { member: viewer } of all)
        for (const seen of viewer.view())
          if (seen.state !== 'alive') doubts.push(`${viewer.id} holds ${seen.id} ${seen.state}`);
    }, 20);
    const settle = () => new Promise((resolve) => setTimeout(resolve, 600));
    try {
      const next = newKey();
      for (const { seal } of all) {
        seal.rekey(installKey(seal.keyring, next));
        await settle();
      }
      for (const { seal } of all) {
        seal.rekey(useKey(seal.keyring, next));
        await settle();
      }
      for (const { seal } of all) {
        seal.rekey(removeKey(seal.keyring, sharedKey));
        await settle();
      }
    } finally {
      clearInterval(watch);
    }
    expect(doubts).toEqual([]);
    expect(all.map(({ seal }) => seal.rejected)).toEqual([0, 0, 0]);
    expect(all.every(({ member: m }) => alive(m).join() === everyone.join())).toBe(true);
  });
});
