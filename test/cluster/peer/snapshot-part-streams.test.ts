import { describe, expect, it } from 'vitest';
import type { PeerStreams } from '../../../src/cluster/peer/peer-streams.js';
import { snapshotPartStreams } from '../../../src/cluster/peer/snapshot-part-streams.js';
import { FakeClock } from '../../support/fake-clock.js';

const STALL_MS = 60_000;

/** Streams whose connection to every member takes nothing more: what a member gone silent looks like. */
function fullStreams(connection = 3): Pick<PeerStreams, 'send' | 'unwrittenTo' | 'connectionTo' | 'handle'> {
  return {
    send: () => true,
    unwrittenTo: () => 64 * 1024 * 1024,
    connectionTo: () => connection,
    handle: () => undefined,
  };
}

describe('Snapshot parts over the peer streams', () => {
  it('Given no room for the next part, when the sender gives the transfer up, then the wait ends with false at the next look, not at the stall bound', async () => {
    const clock = new FakeClock();
    const link = snapshotPartStreams(fullStreams(), clock, STALL_MS);
    let givenUp = false;
    let outcome: boolean | null = null;

    void link.send('10.0.0.2:7946', new Uint8Array(8), () => givenUp).then((sent) => (outcome = sent));
    await clock.advance(1_000);
    expect(outcome).toBeNull();
    givenUp = true;
    await clock.advance(100);

    expect(outcome).toBe(false);
    expect(clock.monotonic()).toBeLessThan(STALL_MS);
  });

  it('Given no room and a sender that never gives up, then the part is given up at the stall bound', async () => {
    const clock = new FakeClock();
    const link = snapshotPartStreams(fullStreams(), clock, STALL_MS);
    let outcome: boolean | null = null;

    void link.send('10.0.0.2:7946', new Uint8Array(8)).then((sent) => (outcome = sent));
    await clock.advance(STALL_MS - 1_000);
    expect(outcome).toBeNull();
    await clock.advance(2_000);

    expect(outcome).toBe(false);
  });

  it('numbers the connection to a member as the streams do, and a member that is no address as 0', () => {
    const link = snapshotPartStreams(fullStreams(3), new FakeClock(), STALL_MS);

    expect([link.connection('10.0.0.2:7946'), link.connection('not an address')]).toEqual([3, 0]);
  });
});
