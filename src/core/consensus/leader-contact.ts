/** Contacts a member remembers sending while no echo confirms them: ten seconds of responses at 10 a second. */
const MAX_UNCONFIRMED = 128;

/**
 * Each member's proof that it is in touch with the leader, and the leader's knowledge of when each member
 * surely was: what a member's lease on its runs stands on (see member-lease.ts). Times are each side's own
 * monotonic clock; no clock is compared with another's.
 *
 * A member numbers each response it sends the leader (`contact`) and notes when it sent it; the leader
 * echoes, in its next append to that member, the latest number it received. When the echo comes back, the
 * member knows the leader had its response, so it was in touch as of that response's sending: its lease
 * runs from then. Hearing the leader is not enough, since a cut that lets the leader's messages through but
 * not the member's would leave the member sure of itself while the leader counts it gone.
 *
 * The leader, for its part, notes when each member's latest contact arrived (a response, or a write it
 * forwarded): the member's lease started no later than that. A leader newly elected knows nothing of the members' contacts with its predecessor,
 * which kept sending them until its check-quorum deposed it, so it counts each as heard at its election
 * plus that bound.
 */
export class LeaderContact {
  private nextContact: number;
  private readonly unconfirmed = new Map<number, number>();
  private confirmedAt: number;
  private readonly contactOf = new Map<string, { contact: number | undefined; at: number }>();
  private leadingSince: number | null = null;

  /**
   * `startedAt`: a member just started has no run to stop and takes its start as its last contact.
   * `firstContact`: where this life's numbers start, drawn at random, so an echo of a number an earlier life
   * sent never confirms one this life sent.
   */
  constructor(
    startedAt: number,
    private readonly deposedWithinMs: number,
    firstContact: number,
  ) {
    this.confirmedAt = startedAt;
    this.nextContact = firstContact;
  }

  /** Numbers a response about to go to the leader. */
  stampResponse(now: number): number {
    const contact = this.nextContact++;
    this.unconfirmed.set(contact, now);
    if (this.unconfirmed.size > MAX_UNCONFIRMED)
      this.unconfirmed.delete(this.unconfirmed.keys().next().value!);
    return contact;
  }

  /** The leader echoed `contact`: it had that response, so this member was in touch when it sent it. */
  echoed(contact: number): void {
    const sentAt = this.unconfirmed.get(contact);
    if (sentAt === undefined) return;
    this.confirmedAt = Math.max(this.confirmedAt, sentAt);
    for (const number of this.unconfirmed.keys()) {
      if (number > contact) break;
      this.unconfirmed.delete(number);
    }
  }

  /**
   * Leading: `member`'s response numbered `contact` arrived now. Whatever its number (a member restarted
   * numbers afresh), the member sent it before now, and what it will be echoed is one it sent.
   */
  received(member: string, contact: number, now: number): void {
    this.contactOf.set(member, { contact, at: now });
  }

  /**
   * Leading: `member` reached this leader now some other way than a response: a write it forwarded. Any
   * lease it holds started before now, so counting it as heard now only waits longer before dropping it;
   * and it must be counted: a member just restarted takes its start as its last contact, and may start a
   * run from such a write while every response of its new life is lost on the way here.
   */
  heard(member: string, now: number): void {
    if (this.leadingSince === null) return;
    const known = this.contactOf.get(member);
    this.contactOf.set(member, { contact: known?.contact, at: now });
  }

  /** Leading: the number to echo to `member` (the latest it sent), if any. */
  echoFor(member: string): number | undefined {
    return this.contactOf.get(member)?.contact;
  }

  becameLeader(now: number): void {
    this.leadingSince = now;
    this.contactOf.clear();
  }

  /** Deposed (or stepped down): its authority lasted until now, which its successor's bound covers. */
  steppedDown(now: number): void {
    if (this.leadingSince === null) return;
    this.leadingSince = null;
    this.contactOf.clear();
    this.confirmedAt = Math.max(this.confirmedAt, now);
  }

  /** When (this member's clock) it was last surely in touch with a leader; null while it leads. */
  get lastSureContact(): number | null {
    return this.leadingSince !== null ? null : this.confirmedAt;
  }

  /** How long ago this member was last surely in touch with a leader (0 while it leads). */
  leaseAgeMs(now: number): number {
    return this.leadingSince !== null ? 0 : Math.max(0, now - this.confirmedAt);
  }

  /**
   * Leading: how long since `member` was last heard, counted from this leader's election when not since; 0
   * when this member does not lead. Unlike memberSilentForMs, no bound for a predecessor's contacts: it
   * says whom to give new work, which the log fences, not whose runs may be recorded lost.
   */
  memberUnheardForMs(member: string, now: number): number {
    if (this.leadingSince === null) return 0;
    return Math.max(0, now - (this.contactOf.get(member)?.at ?? this.leadingSince));
  }

  /** Leading: how long `member` has surely not been in touch; 0 when this member does not lead. */
  memberSilentForMs(member: string, now: number): number {
    if (this.leadingSince === null) return 0;
    const heard = this.contactOf.get(member)?.at ?? this.leadingSince + this.deposedWithinMs;
    return Math.max(0, now - heard);
  }
}
