import { describe, expect, it } from 'vitest';
import { QuorumWatch } from '../../../src/cluster/peer/quorum-watch.js';
import type { SchedError } from '../../../src/core/errors.js';
import { FakeClock } from '../../support/fake-clock.js';

describe('QuorumWatch: when a peer counts itself cut off from the majority', () => {
  function watched(lostAfterMs = 3_000) {
    const clock = new FakeClock();
    let silentSince: number | null = null;
    const heard: string[] = [];
    const errors: SchedError[] = [];
    let contactAt = clock.monotonic();
    const watch = new QuorumWatch({
      leaderSilentForMs: () => (silentSince === null ? 0 : clock.monotonic() - silentSince),
      clock,
      lostAfterMs,
      onLost: (error) => (errors.push(error), heard.push('lost')),
      onRegained: () => heard.push('regained'),
      leaseContactAt: () => contactAt,
      lease: { durationMs: 5_000, stopMs: 3_000, maxDrift: 0.05 },
      onLeaseExpired: () => heard.push('lease expired'),
    });
    watch.start();
    const silence = () => (silentSince = clock.monotonic());
    const leaderHeard = () => ((silentSince = null), (contactAt = clock.monotonic()));
    const echoedSentAt = (at: number) => (contactAt = at);
    return { clock, watch, heard, errors, silence, leaderHeard, echoedSentAt };
  }

  it('Given a leader that goes quiet for less than the threshold (an election), then nothing is said', async () => {
    const { clock, heard, silence, leaderHeard } = watched();
    for (let round = 0; round < 4; round += 1) {
      silence();
      await clock.advance(2_500);
      leaderHeard();
    }
    expect(heard).toEqual([]);
  });

  it('Given no sure contact for the lease (less its drift), then it says the lease expired, once until contact is back', async () => {
    const { clock, heard, silence, leaderHeard } = watched();
    silence();
    await clock.advance(4_600);
    expect(heard).toEqual(['lost']);
    await clock.advance(300);
    expect(heard).toEqual(['lost', 'lease expired']);
    await clock.advance(30_000);
    expect(heard).toEqual(['lost', 'lease expired']);
    leaderHeard();
    await clock.advance(300);
    silence();
    await clock.advance(5_000);
    expect(heard).toEqual(['lost', 'lease expired', 'regained', 'lost', 'lease expired']);
  });

  it('Given a lease that ran out, when a late echo renews it for less than the time between two looks, then it says the lease expired again', async () => {
    const { clock, heard, silence, echoedSentAt } = watched();
    silence();
    await clock.advance(6_000);
    expect(heard).toEqual(['lost', 'lease expired']);

    // An echo arrives confirming a response sent 4.7 s ago: the lease holds for 50 ms, unseen by any look,
    // and a run may start in them.
    echoedSentAt(clock.monotonic() - 4_700);
    await clock.advance(300);

    expect(heard).toEqual(['lost', 'lease expired', 'lease expired']);
    await clock.advance(5_000);
    expect(heard).toEqual(['lost', 'lease expired', 'lease expired']);
  });

  it('Given a silence past the threshold, then it says lost once with a NO_QUORUM error, and regained once a leader is heard', async () => {
    const { clock, heard, errors, silence, leaderHeard } = watched();
    silence();
    await clock.advance(3_300);
    expect(heard).toEqual(['lost']);
    expect(errors[0]).toMatchObject({ code: 'NO_QUORUM' });
    await clock.advance(60_000);
    expect(heard).toEqual(['lost', 'lease expired']);
    leaderHeard();
    await clock.advance(300);
    expect(heard).toEqual(['lost', 'lease expired', 'regained']);
  });

  it('Given it was stopped, then it says nothing more', async () => {
    const { clock, watch, heard, silence } = watched();
    watch.stop();
    silence();
    await clock.advance(60_000);
    expect(heard).toEqual([]);
  });
});
