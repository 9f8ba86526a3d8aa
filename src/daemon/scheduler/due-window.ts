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
  /**
   * Everything that came due in one wake-up, at once, so their writes share one commit. Returns the items
   * it could not handle (the store unreachable, say): they are tried again after a pause, as they are
   * when it throws.
   */
  onDue: (items: T[]) => Promise<T[] | void>;
  onError: (error: Error) => void;
  /**
   * After a wake-up that handed over more than one item, the next waits at least this long from it (default
   * 0). Items come due together only under load, and then those of the next few milliseconds share the
   * next round's writes instead of each round paying its own round trips to a distant store.
   */
  batchGapMs?: number;
}

/** The first pause after a failed fire or load, doubled at each failure in a row up to the longest. */
const FIRST_RETRY_MS = 500;
const LONGEST_RETRY_MS = 8_000;

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
  /** The round of due items under way. */
  private waking: Promise<void> | null = null;
  private stopped = true;
  private refilling: Promise<void> | null = null;
  /** The last load hit its limit, so the window ends at its last item rather than at its horizon. */
  private lastLoadFull = false;
  /** After a failure, nothing is tried before this (monotonic) instant, so an outage is not hammered. */
  private retryAt = 0;
  private retryDelayMs = 0;
  /** After a round of several items, the next waits until this (monotonic) instant: see batchGapMs. */
  private nextRoundAt = 0;

  constructor(private readonly options: DueWindowOptions<T>) {}

  async start(): Promise<void> {
    this.stopped = false;
    await this.reload();
    this.arm();
  }

  /**
   * Arms no more; resolves once the round under way, if any, has handed its items over, so what they
   * start reaches the parts that stop after this one (it would otherwise land after they closed).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.();
    this.timer = null;
    this.armedFor = Infinity;
    await this.waking;
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
    const { clock } = this.options;
    const earliest = Math.min(this.peekLive()?.dueAt ?? Infinity, Math.max(refillAt, clock.now()));
    // The pause is on monotonic time; waking is on wall time, so it is carried over as a wall instant.
    const pauseLeft = Math.max(this.retryAt, this.nextRoundAt) - clock.monotonic();
    const wakeAt = pauseLeft > 0 ? Math.max(earliest, clock.now() + pauseLeft) : earliest;
    if (this.timer && wakeAt >= this.armedFor) return;
    this.timer?.();
    this.timer = null;
    this.armedFor = Infinity;
    // Nothing to wait for while a load is in flight and nothing is held: the load re-arms when it ends.
    if (wakeAt === Infinity) return;
    this.armedFor = wakeAt;
    this.timer = wallTimer(this.options.clock, wakeAt, () => this.wake());
  }

  private wake(): void {
    this.timer = null;
    this.armedFor = Infinity;
    if (this.stopped || this.busy) return;
    this.busy = true;
    this.waking = this.handDue().finally(() => (this.waking = null));
  }

  private async handDue(): Promise<void> {
    const due: T[] = [];
    let failed: T[] = [];
    try {
      const { clock, batchGapMs = 0 } = this.options;
      const now = clock.now();
      for (let top = this.peekLive(); top && top.dueAt <= now; top = this.peekLive()) {
        this.heap.pop();
        due.push(this.items.get(top.key)!);
        this.items.delete(top.key);
      }
      if (due.length > 1) this.nextRoundAt = clock.monotonic() + batchGapMs;
      if (due.length > 0) failed = (await this.options.onDue(due)) ?? [];
    } catch (error) {
      this.options.onError(error as Error);
      failed = due;
    } finally {
      this.busy = false;
      if (failed.length > 0) this.keepForRetry(failed);
      else if (due.length > 0) this.retryDelayMs = 0;
      this.refillIfNear();
      this.arm();
    }
  }

  /**
   * Puts back what could not be handled, to be tried after a pause: dropped, an item would wait for the
   * next load, up to three quarters of a window, and an every-second job would fall silent that long after
   * a database restart. An item upserted meanwhile is newer and wins.
   */
  private keepForRetry(failed: T[]): void {
    this.pauseAfterFailure();
    if (this.stopped) return;
    for (const item of failed) {
      const key = this.options.keyOf(item);
      const dueAt = this.options.dueOf(item);
      if (dueAt !== null && !this.items.has(key)) this.enter(key, item, dueAt);
    }
  }

  private pauseAfterFailure(): void {
    this.retryDelayMs = Math.min(LONGEST_RETRY_MS, Math.max(FIRST_RETRY_MS, this.retryDelayMs * 2));
    this.retryAt = this.options.clock.monotonic() + this.retryDelayMs;
  }

  /** Starts loading the next window once the current one is three-quarters gone; at most one load at a time. */
  private refillIfNear(): void {
    if (this.stopped || this.refilling) return;
    if (this.options.clock.now() < this.refillAt()) return;
    this.refilling = this.reload()
      .catch((error: Error) => {
        this.options.onError(error);
        this.pauseAfterFailure();
      })
      .finally(() => {
        this.refilling = null;
        this.arm();
      });
  }
}

/** The items whose work was rejected, each rejection reported (the first of a wake-up's batch only: they share a cause). */
export function failedItems<T>(
  items: readonly T[],
  results: readonly PromiseSettledResult<unknown>[],
  report: (error: Error) => void,
): T[] {
  const failed: T[] = [];
  results.forEach((result, index) => {
    if (result.status === 'fulfilled') return;
    if (failed.length === 0)
      report(result.reason instanceof Error ? result.reason : new Error(String(result.reason)));
    failed.push(items[index]!);
  });
  return failed;
}
