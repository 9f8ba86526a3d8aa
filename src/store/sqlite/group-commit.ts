import { performance } from 'node:perf_hooks';
import type Database from 'better-sqlite3';

/**
 * How long the daemon's writes may wait for company (see flushOnceGathered): a fire waiting to be recorded
 * waits this, and one more turn of the event loop, at most.
 */
export const GATHER_WRITES_MS = 1;

/**
 * A replica's commits come spaced by three times as long as the last one took, 100 ms at most (see
 * CommitPacing.spacing).
 */
export const REPLICA_COMMIT_SPACING: CommitSpacing = { factor: 3, maxMs: 100 };

export interface CommitSpacing {
  /** The wait after a commit, as a multiple of how long it took. */
  factor: number;
  /** The longest wait, however long the commit took. */
  maxMs: number;
}

/** When the writes asked for commit; with neither, each commits at the next turn of the event loop. */
export interface CommitPacing {
  /** How long a write may wait for company (see flushOnceGathered). */
  maxGatherMs?: number;
  /**
   * For writes that come as a stream whatever their answers' delay (a peer's replica applying the log): the
   * next commit begins no sooner than `factor` times as long as the last one took after it ended (`maxMs`
   * at most). Committing is then at most 1 / (1 + factor) of the event loop's time, however fast the
   * writes come: under load the commits grow larger and fewer. Most of a commit's cost is the pages it
   * rewrites (a fire dirties a page of the jobs table and of each index keyed by job), so one commit of
   * many fires rewrites a shared page once where many small ones rewrote it each time. A write alone
   * after a small commit waits no timer (a wait under a millisecond, which a timer would round up to one,
   * is the next turn).
   */
  spacing?: CommitSpacing;
}

export interface GroupCommitOptions extends CommitPacing {
  /**
   * Real milliseconds, monotonic (a test's own clock). Not the daemon's clock: the wait is weighed against
   * the time a commit really takes, and virtual time, standing still while the loop spins, would never end it.
   */
  now?: () => number;
}

interface PendingWrite {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: the writes asked for together run in one transaction, each in its own savepoint (so one
 * failing write does not undo the others), and each promise settles only after the commit, so an
 * acknowledged write is on disk (synchronous=FULL) without one fsync per request.
 */
export class GroupCommit {
  private pending: PendingWrite[] = [];
  private flushScheduled = false;
  /** Tells a flush scheduled earlier, still gathering, that it has been overtaken. */
  private flushRound = 0;
  private holds = 0;
  /** The writes the last commit held, how long it took and when it ended: what the next one waits for. */
  private lastBatchSize = 0;
  private lastCommitMs = 0;
  private lastCommitEnded = Number.NEGATIVE_INFINITY;
  /** The timer of a flush waiting for its spacing, cleared by any flush. */
  private spacingTimer: NodeJS.Timeout | null = null;
  private readonly savepoint: Database.Statement;
  private readonly releaseSavepoint: Database.Statement;
  private readonly rollbackToSavepoint: Database.Statement;

  private readonly maxGatherMs: number;
  private readonly spacing: CommitSpacing | undefined;
  private readonly now: () => number;

  /**
   * Without pacing a write commits at the next turn whatever came with it (a tool's store, and tests that
   * count the turns a write takes); the daemon's store gathers for up to GATHER_WRITES_MS, a peer's
   * replica spaces its commits by REPLICA_COMMIT_SPACING.
   */
  constructor(
    private readonly sqlite: Database.Database,
    { maxGatherMs = 0, spacing, now = () => performance.now() }: GroupCommitOptions = {},
  ) {
    this.maxGatherMs = maxGatherMs;
    this.spacing = spacing;
    this.now = now;
    this.savepoint = sqlite.prepare('SAVEPOINT sched_write');
    this.releaseSavepoint = sqlite.prepare('RELEASE sched_write');
    this.rollbackToSavepoint = sqlite.prepare('ROLLBACK TO sched_write');
  }

  /** Writes asked for and not yet committed. */
  get queued(): number {
    return this.pending.length;
  }

  /**
   * Commits nothing from now until the returned release is called, not even when `flush()` is called:
   * another connection holds the database's write lock meanwhile (see SqliteReplica.replaceWithFile), and
   * waiting for it would block the event loop. What was asked for meanwhile commits together once released.
   */
  hold(): () => void {
    this.holds += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds -= 1;
      if (this.holds === 0 && this.pending.length > 0) this.scheduleFlush();
    };
  }

  write<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.scheduleFlush();
    });
  }

  /** Flushes at a later turn of the event loop, as the store's pacing says, unless a flush is on its way. */
  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    const round = ++this.flushRound;
    if (this.spacing) this.flushSpaced(round, this.spacing);
    else this.flushOnceGathered(round);
  }

  /** A commit's writes asked for others while it ran: they wait as this commit's duration says. */
  private rescheduleFlush(): void {
    this.unschedule();
    this.scheduleFlush();
  }

  /** Forgets a flush scheduled, and its timer: a scheduled flush of an earlier round does nothing. */
  private unschedule(): void {
    this.flushScheduled = false;
    if (this.spacingTimer !== null) clearTimeout(this.spacingTimer);
    this.spacingTimer = null;
  }

  /** Flushes once the spacing after the last commit has passed (see CommitPacing.spacing). */
  private flushSpaced(round: number, { factor, maxMs }: CommitSpacing): void {
    const wait = this.lastCommitEnded + Math.min(maxMs, factor * this.lastCommitMs) - this.now();
    const flushIfStill = (): void => {
      if (this.flushScheduled && round === this.flushRound) this.flush();
    };
    if (wait >= 1) this.spacingTimer = setTimeout(flushIfStill, wait);
    else setImmediate(flushIfStill);
  }

  /**
   * Flushes once as many writes are pending as the last commit held, or at the first turn after waiting as
   * long as that commit took (maxGatherMs at most). Clients that each wait for their answer (8
   * connections, one request in flight on each) are all answered by one commit, and their next requests
   * arrive over the following fraction of a millisecond: flushed at the first turn, the first one was
   * committed alone (the loop blocked for its fsync) while the others queued for the next commit, so two
   * commits went to every round of them. Waiting for company costs no more than the commit it may save. A
   * client alone (the last commit held its one write) never waits; a write after a larger commit may wait
   * the whole time for company that does not come.
   */
  private flushOnceGathered(round: number): void {
    const gatherUntil = this.now() + Math.min(this.lastCommitMs, this.maxGatherMs);
    const flushWhenGathered = (): void => {
      if (!this.flushScheduled || round !== this.flushRound) return;
      const gathering = this.pending.length < this.lastBatchSize && this.holds === 0;
      if (gathering && this.now() < gatherUntil) setImmediate(flushWhenGathered);
      else this.flush();
    };
    setImmediate(flushWhenGathered);
  }

  /**
   * One transaction for the whole batch, one savepoint per write (prepared once: better-sqlite3's
   * nested transaction wrappers cost a tenth of a create). IMMEDIATE takes the write lock up front, so
   * a second connection waits (busy_timeout) instead of failing with SQLITE_BUSY on upgrade.
   */
  flush(): void {
    this.unschedule();
    const batch = this.pending;
    if (batch.length === 0 || this.holds > 0) return;
    this.pending = [];
    const results: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    const began = this.now();
    try {
      this.sqlite
        .transaction(() => {
          for (const write of batch) results.push(this.inSavepoint(write.work));
        })
        .immediate();
    } catch (error) {
      for (const write of batch) write.reject(error);
      return;
    } finally {
      this.lastBatchSize = batch.length;
      this.lastCommitEnded = this.now();
      this.lastCommitMs = this.lastCommitEnded - began;
      // A write asked for by one of this batch was scheduled before this commit's duration was known.
      if (this.pending.length > 0) this.rescheduleFlush();
    }
    batch.forEach((write, index) => {
      const result = results[index]!;
      if (result.ok) write.resolve(result.value);
      else write.reject(result.error);
    });
  }

  private inSavepoint(work: () => unknown): { ok: true; value: unknown } | { ok: false; error: unknown } {
    this.savepoint.run();
    try {
      const value = work();
      this.releaseSavepoint.run();
      return { ok: true, value };
    } catch (error) {
      this.rollbackToSavepoint.run();
      this.releaseSavepoint.run();
      return { ok: false, error };
    }
  }
}
