import type { MemberUpdate } from './swim-messages.js';

/**
 * The membership news a member has to pass on, one item a member (the latest replaces the one before), each
 * piggybacked on a bounded number of messages: how SWIM spreads news, infection-style.
 */
export class MembershipNews {
  private readonly items = new Map<string, { update: MemberUpdate; left: number }>();

  /** `update` is to be sent `times` times, replacing what there was to say of the same member. */
  add(update: MemberUpdate, times: number): void {
    this.items.set(update.id, { update, left: times });
  }

  /** For one message: the freshest news first (most retransmissions left), at most `max` items. */
  take(max: number): MemberUpdate[] {
    const chosen = [...this.items.values()].sort((a, b) => b.left - a.left).slice(0, max);
    for (const item of chosen) {
      item.left -= 1;
      if (item.left <= 0) this.items.delete(item.update.id);
    }
    return chosen.map((item) => item.update);
  }
}
