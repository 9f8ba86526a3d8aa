import { describe, expect, it } from 'vitest';
import { LeaderContact } from '../../../src/core/consensus/leader-contact.js';

describe('LeaderContact: when a member was surely in touch with its leader', () => {
  it('Given responses sent, when the leader echoes one, then the lease runs from that response’s sending, not from the echo', () => {
    const member = new LeaderContact(0, 2_000, 1_000);
    const first = member.stampResponse(100);
    const second = member.stampResponse(200);
    expect(member.leaseAgeMs(1_000)).toBe(1_000);
    member.echoed(first);
    expect(member.leaseAgeMs(1_000)).toBe(900);
    member.echoed(second);
    expect(member.leaseAgeMs(1_000)).toBe(800);
    // An echo of an older response, arriving late, takes nothing back.
    member.echoed(first);
    expect(member.leaseAgeMs(1_000)).toBe(800);
  });

  it('Given an echo of a number this life never sent (an earlier life’s), then it confirms nothing', () => {
    const member = new LeaderContact(0, 2_000, 5_000);
    member.stampResponse(100);
    member.echoed(17);
    expect(member.leaseAgeMs(1_000)).toBe(1_000);
  });

  it('Given a member whose responses never get through, then what it remembers stays bounded and its lease ages', () => {
    const member = new LeaderContact(0, 2_000, 1);
    for (let at = 1; at <= 10_000; at += 1) member.stampResponse(at);
    member.echoed(1);
    expect(member.leaseAgeMs(20_000)).toBe(20_000);
    member.echoed(10_000);
    expect(member.leaseAgeMs(20_000)).toBe(10_000);
  });

  it('Given a leader, then its own lease never ages while it leads, and runs from its stepping down after', () => {
    const node = new LeaderContact(0, 2_000, 1);
    node.becameLeader(1_000);
    expect(node.leaseAgeMs(60_000)).toBe(0);
    node.steppedDown(60_000);
    expect(node.leaseAgeMs(61_000)).toBe(1_000);
  });

  it('Given a new leader, then a member it has not heard counts as heard at the election plus the deposing bound, and a member heard since from its latest response', () => {
    const leader = new LeaderContact(0, 2_000, 1);
    leader.becameLeader(10_000);
    expect(leader.memberSilentForMs('n2', 11_000)).toBe(0);
    expect(leader.memberSilentForMs('n2', 15_000)).toBe(3_000);
    leader.received('n2', 42, 14_000);
    expect(leader.echoFor('n2')).toBe(42);
    expect(leader.memberSilentForMs('n2', 15_000)).toBe(1_000);
    leader.steppedDown(16_000);
    expect(leader.memberSilentForMs('n2', 20_000)).toBe(0);
    expect(leader.echoFor('n2')).toBeUndefined();
  });

  it('Given a new leader, then a member not heard since counts as unheard from the election, with no bound for its predecessor, and from its latest contact once heard', () => {
    const leader = new LeaderContact(0, 2_000, 1);
    expect(leader.memberUnheardForMs('n2', 5_000)).toBe(0);
    leader.becameLeader(10_000);
    expect(leader.memberUnheardForMs('n2', 12_500)).toBe(2_500);
    leader.received('n2', 7, 12_000);
    expect(leader.memberUnheardForMs('n2', 12_500)).toBe(500);
    leader.heard('n2', 12_400);
    expect(leader.memberUnheardForMs('n2', 12_500)).toBe(100);
    leader.steppedDown(13_000);
    expect(leader.memberUnheardForMs('n2', 20_000)).toBe(0);
  });

  it('Given a member heard only through a write it forwarded (a restarted member whose responses are lost), then the leader counts it in touch from then, and echoes what it echoed before', () => {
    const leader = new LeaderContact(0, 2_000, 1);
    leader.becameLeader(0);
    leader.received('n2', 42, 3_000);
    expect(leader.memberSilentForMs('n2', 12_000)).toBe(9_000);

    leader.heard('n2', 11_000);

    expect(leader.memberSilentForMs('n2', 12_000)).toBe(1_000);
    expect(leader.echoFor('n2')).toBe(42);
  });

  it('Given a node that does not lead, then a write forwarded to it counts for nothing', () => {
    const node = new LeaderContact(0, 2_000, 1);
    node.heard('n2', 5_000);
    node.becameLeader(6_000);
    expect(node.memberSilentForMs('n2', 20_000)).toBe(12_000);
  });
});
