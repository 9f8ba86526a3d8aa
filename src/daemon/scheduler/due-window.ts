/*
 * WHEN THE WALL CLOCK STEPS (design rule; tested in test/daemon/virtual-wall-clock.test.ts)
 *
 * Due times are wall instants (what users schedule and what the store holds), but timers run on
 * monotonic time, so a step of the wall clock (NTP, an operator, a VM resumed) is seen only when a
 * timer wakes and reads the wall clock again (see `wallTimer`). The scheduler then behaves so:
 *
 * - Jump forward: the instants passed over are late, exactly as if the daemon had been down; each job
 *   fires once and its misfire policy decides what the missed instants become (skip, latest, all,
 *   count:N, each recorded in the ledger). Nothing fires twice: a fire is a compare-and-set on the job's
 *   next instant, and (job, instant, attempt) is unique. The jump is noticed at the next wake-up, at
 *   most three quarters of a window (45 s) later, sooner when an item is due before that.
 * - Step back: nothing that already fired fires again (the job's next instant moved past it when it
 *   fired). The next instant is kept, not recomputed from the new wall time: timers that wake "early"
 *   are re-armed from the new wall time, so a job waits until the wall clock reaches its instant again.
 *   A step back of an hour therefore pauses an every-minute job for that hour, as cron does.
 */
import { MinHeap } from '../../core/min-heap.js';
import { wallTimer, type CancelTimer, type Clock } from '../clock.js';

export interface DueWindowOptions<T> {
  clock: Clock;
  /** How far ahead the in-memory window reaches. */
  windowMs: number;
  /** How many items one load may take; a full load only vouches for items up to its last due time. */
  loadLimit: number;
  /** Items due at or before `horizon`, earliest first (an indexed range query, never a scan). */
  load: (horizon: number, limit: number) => Promise<T[]>;
  keyOf: (item: T) => string;
  /** The item's due instant, or null when it is not due at all (or not this node's to fire). */
  dueOf: (item: T) => number | null;
  /** What `load` orders and bounds by, when it is not `dueOf` (a job's nominal instant, before its spread). */
  loadKeyOf?: (item: T) => number;
  /** Everything that came due in one wake-up, at once, so their writes share one commit. */
  onDue: (items: T[]) => Promise<void>;
  onError: (error: Error) => void;
}

interface Entry {
  key: string;
  dueAt: number;
}

/**
 * Keeps the next window of due items in memory: the store's due-time index fills it, a min-heap orders
 * it, and one timer is armed for the earliest. Changes are pushed in with `upsert`/`remove`, so no
 * periodic scan is needed. A timer that wakes early re-arms; one that wakes late fires what is due.
 * The next window is loaded ahead, in the last quarter of the current one, and without holding up fires:
 * a load of thousands of rows would otherwise delay every instant due while it runs.
 */
export class DueWindow<T> {
  private readonly heap = new MinHeap<Entry>((entry) => entry.dueAt);
  /** The window's truth: a heap entry whose dueAt differs from its item here is stale and skipped. */
  private readonly items = new Map<string, T>();
  private windowEnd = 0;
  private timer: CancelTimer | null = null;
  private armedFor = Infinity;
  private busy = false;
  private stopped = true;
  private refilling: Promise<void> | null = null;
  /** The last load hit its limit, so the window ends at its last item rather than at its horizon. */
  private lastLoadFull = false;

  constructor(private readonly options: DueWindowOptions<T>) {}

  async start(): Promise<void> {
    this.stopped = false;
    await this.reload();
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.();
    this.timer = null;
    this.armedFor = Infinity;
  }

  get size(): number {
    return this.items.size;
  }

  /** Adds or replaces an item; one due beyond the window is left for a later load. */
  upsert(item: T): void {
    if (this.stopped) return;
    const dueAt = this.options.dueOf(item);
    const key = this.options.keyOf(item);
    if (dueAt === null || dueAt > this.windowEnd) {
      this.items.delete(key);
      return;
    }
    this.enter(key, item, dueAt);
    this.arm();
  }

  remove(key: string): void {
    this.items.delete(key);
  }

  /** Forgets the window and loads it again: what is due here changed wholesale (a new shard map). */
  async reset(): Promise<void> {
    if (this.stopped) return;
    this.items.clear();
    this.heap.clear();
    await this.reload();
    this.arm();
  }

  private enter(key: string, item: T, dueAt: number): void {
    this.items.set(key, item);
    this.heap.push({ key, dueAt });
  }

  private async reload(): Promise<void> {
    const { clock, windowMs, loadLimit, load, keyOf, dueOf } = this.options;
    const horizon = clock.now() + windowMs;
    const due = await load(horizon, loadLimit);
    this.lastLoadFull = due.length === loadLimit;
    const loadKeyOf = this.options.loadKeyOf ?? ((item: T) => dueOf(item) ?? horizon);
    this.windowEnd = this.lastLoadFull ? loadKeyOf(due[due.length - 1]!) : horizon;
    for (const item of due) {
      const key = keyOf(item);
      const dueAt = dueOf(item);
      // Not this node's to fire (another node owns it), or no longer due.
      if (dueAt === null) continue;
      const held = this.items.get(key);
      if (held === undefined || dueOf(held) !== dueAt) this.enter(key, item, dueAt);
    }
  }

  /**
   * When to load the next window: a quarter window before this one ends; or, when the last load was cut
   * short by its limit, only once its last item is due (loading earlier would fetch the same items again).
   */
  private refillAt(): number {
    return this.lastLoadFull ? this.windowEnd : this.windowEnd - this.options.windowMs / 4;
  }

  private peekLive(): Entry | undefined {
    for (let top = this.heap.peek(); top; top = this.heap.peek()) {
      const item = this.items.get(top.key);
      if (item !== undefined && this.options.dueOf(item) === top.dueAt) return top;
      this.heap.pop();
    }
    return undefined;
  }

  private arm(): void {
    if (this.stopped) return;
    // Wake for the next item, or to load ahead when the window's last quarter begins.
    const refillAt = this.refilling ? Infinity : this.refillAt();
    const wakeAt = Math.min(this.peekLive()?.dueAt ?? Infinity, Math.max(refillAt, this.options.clock.now()));
    if (this.timer && wakeAt >= this.armedFor) return;
    this.timer?.();
    this.timer = null;
    this.armedFor = Infinity;
    // Nothing to wait for while a load is in flight and nothing is held: the load re-arms when it ends.
    if (wakeAt === Infinity) return;
    this.armedFor = wakeAt;
    this.timer = wallTimer(this.options.clock, wakeAt, () => void this.wake());
  }

  private async wake(): Promise<void> {
    this.timer = null;
    this.armedFor = Infinity;
    if (this.stopped || this.busy) return;
    this.busy = true;
    try {
      const now = this.options.clock.now();
      const due: T[] = [];
      for (let top = this.peekLive(); top && top.dueAt <= now; top = this.peekLive()) {
        this.heap.pop();
        due.push(this.items.get(top.key)!);
        this.items.delete(top.key);
      }
      if (due.length > 0) await this.options.onDue(due);
    } catch (error) {
      this.options.onError(error as Error);
    } finally {
      this.busy = false;
      this.refillIfNear();
      this.arm();
    }
  }

  /** Starts loading the next window once the current one is three-quarters gone; at most one load at a time. */
  private refillIfNear(): void {
    if (this.stopped || this.refilling) return;
    if (this.options.clock.now() < this.refillAt()) return;
    this.refilling = this.reload()
      .catch((error: Error) => this.options.onError(error))
      .finally(() => {
        this.refilling = null;
        this.arm();
      });
  }
}
