import { randomInt } from './seeded-random.js';
import type { VirtualTime } from './virtual-time.js';

export interface LinkFaults {
  /** Chance a message is lost. */
  lossRate: number;
  /** Chance a message is delivered twice (each copy with its own delay). */
  duplicateRate: number;
  /** Delays are uniform in [min, max] real ms, so messages overtake one another. */
  minDelayMs: number;
  maxDelayMs: number;
}

export const NO_FAULTS: LinkFaults = { lossRate: 0, duplicateRate: 0, minDelayMs: 1, maxDelayMs: 5 };

/**
 * The network between simulated hosts: each message is lost, delayed, duplicated or reordered as the
 * faults say, and dropped when its link is cut as it is sent (what is already in flight still arrives,
 * unless its receiver is down by then). Cuts are one way: `from` → `to` may be cut while `to` → `from` works, the case that leaves a
 * member hearing its leader while the leader no longer hears it. A host that is down receives nothing.
 */
export class FaultyLinks<Message> {
  private readonly cuts = new Set<string>();
  /** Links slower than the rest, one way: a stream stalled and catching up, its messages arriving late. */
  private readonly slowLinks = new Map<string, { minDelayMs: number; maxDelayMs: number }>();
  /** Links that lose more than the rest, one way: most messages go missing, now and then one gets through. */
  private readonly flaky = new Map<string, number>();
  private readonly receivers = new Map<string, (message: Message, from: string) => void>();
  faults: LinkFaults;

  constructor(
    private readonly time: VirtualTime,
    private readonly random: () => number,
    faults: LinkFaults,
  ) {
    this.faults = faults;
  }

  /** Where messages to `host` go while it is up; null while it is down. */
  receiveAt(host: string, receive: ((message: Message, from: string) => void) | null): void {
    if (receive === null) this.receivers.delete(host);
    else this.receivers.set(host, receive);
  }

  send(from: string, to: string, message: Message): void {
    const { lossRate, duplicateRate, minDelayMs, maxDelayMs } = this.faults;
    const loss = this.flaky.get(`${from}>${to}`) ?? lossRate;
    if (this.isCut(from, to) || this.random() < loss) return;
    const copies = this.random() < duplicateRate ? 2 : 1;
    const slow = this.slowLinks.get(`${from}>${to}`);
    for (let copy = 0; copy < copies; copy++) {
      const delay = randomInt(this.random, slow?.minDelayMs ?? minDelayMs, slow?.maxDelayMs ?? maxDelayMs);
      this.time.at(this.time.now + delay, () => {
        this.receivers.get(to)?.(message, from);
      });
    }
  }

  isCut(from: string, to: string): boolean {
    return this.cuts.has(`${from}>${to}`);
  }

  cut(from: string, to: string): void {
    this.cuts.add(`${from}>${to}`);
  }

  /** Mends `from` → `to` alone (its way back stays as it is). */
  restore(from: string, to: string): void {
    this.cuts.delete(`${from}>${to}`);
    this.flaky.delete(`${from}>${to}`);
  }

  /** Cuts `member` off from every other host, both ways. */
  isolate(member: string, others: readonly string[]): void {
    this.partition([[member], others.filter((other) => other !== member)]);
  }

  /** Makes `from` → `to` deliver after [min, max] ms until healed. */
  slow(from: string, to: string, minDelayMs: number, maxDelayMs: number): void {
    this.slowLinks.set(`${from}>${to}`, { minDelayMs, maxDelayMs });
  }

  /** Makes `from` → `to` lose `lossRate` of its messages until healed. */
  degrade(from: string, to: string, lossRate: number): void {
    this.flaky.set(`${from}>${to}`, lossRate);
  }

  /** Cuts every link between the groups, both ways (hosts in no group keep their links). */
  partition(groups: readonly (readonly string[])[]): void {
    for (const [i, group] of groups.entries())
      for (const other of groups.slice(i + 1))
        for (const a of group)
          for (const b of other) {
            this.cut(a, b);
            this.cut(b, a);
          }
  }

  heal(): void {
    this.cuts.clear();
    this.flaky.clear();
    this.slowLinks.clear();
  }

  /** The links cut now, as `from>to`, for a failing seed's story. */
  describeCuts(): string {
    const flaky = [...this.flaky].map(([link, loss]) => `${link}~${loss.toFixed(2)}`);
    return [...this.cuts, ...flaky].sort().join(' ') || 'none';
  }
}
