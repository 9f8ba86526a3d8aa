import type { Clock } from '../core/clock.js';
import { isStoreUnreachable } from '../store/unreachable.js';

/** Items written in one call at most: one statement's parameters stay small. */
const MAX_ITEMS_PER_WRITE = 500;

interface Pending<Item, Result> {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

/**
 * Writes items (run starts, run ends) to the store as a group commit: an item that comes while none is
 * being written goes at the next turn of the event loop, with every item that came in the same turn, and
 * the items that come while a write is under way go together in the next one. On an idle daemon an item
 * waits for nothing; under load, many share one statement or transaction instead of each paying its round
 * trips. A write that fails is made again item by item, so one item's failure (a run end whose retry's
 * attempt is taken) is that item's alone; a store that cannot be reached fails them all at once.
 * With a gap, a write of more than one item (there is load) is followed by the next no sooner than the gap
 * after it began, so that more items share each write where every write costs round trips.
 */
export class GroupCommit<Item, Result> {
  private queued: Pending<Item, Result>[] = [];
  private writing = false;
  /** No write begins before this monotonic instant (see the gap). */
  private nextWriteAt = 0;

  /** `writeAll` writes the items together and answers for each, in their order. */
  constructor(
    private readonly writeAll: (items: readonly Item[]) => Promise<Result[]>,
    private readonly gap?: { clock: Clock; ms: number },
  ) {}

  write(item: Item): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.queued.push({ item, resolve, reject });
      if (this.writing) return;
      this.writing = true;
      setImmediate(() => void this.writeQueued());
    });
  }

  private async writeQueued(): Promise<void> {
    while (this.queued.length > 0) {
      if (this.gap) {
        const { clock, ms } = this.gap;
        const wait = this.nextWriteAt - clock.monotonic();
        if (wait > 0) await new Promise<void>((resolve) => clock.setTimer(wait, resolve));
        if (this.queued.length > 1) this.nextWriteAt = clock.monotonic() + ms;
      }
      await this.writeTogether(this.queued.splice(0, MAX_ITEMS_PER_WRITE));
    }
    this.writing = false;
  }

  private async writeTogether(batch: Pending<Item, Result>[]): Promise<void> {
    try {
      const results = await this.writeAll(batch.map((pending) => pending.item));
      batch.forEach((pending, index) => pending.resolve(results[index] as Result));
    } catch (error) {
      if (batch.length === 1 || isStoreUnreachable(error)) {
        for (const pending of batch) pending.reject(error);
        return;
      }
      await Promise.all(
        batch.map((pending) =>
          this.writeAll([pending.item]).then(
            ([result]) => pending.resolve(result as Result),
            (alone: unknown) => pending.reject(alone),
          ),
        ),
      );
    }
  }
}
