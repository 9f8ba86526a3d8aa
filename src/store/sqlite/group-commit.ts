import { performance } from 'node:perf_hooks';
import type Database from 'better-sqlite3';

/**
 * How long the daemon's writes may wait for company (see scheduleFlush): a fire waiting to be recorded
 * waits this, and one more turn of the event loop, at most.
 */
export const GATHER_WRITES_MS = 1;

export interface GatherOptions {
  /** How long a write may wait for company; 0, the default, never (a write commits at the next turn). */
  maxGatherMs?: number;
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
  /** The writes the last commit held, and how long it took: what the next one waits for, and how long. */
  private lastBatchSize = 0;
  private lastCommitMs = 0;
  private readonly savepoint: Database.Statement;
  private readonly releaseSavepoint: Database.Statement;
  private readonly rollbackToSavepoint: Database.Statement;

  private readonly maxGatherMs: number;
  private readonly now: () => number;

  /**
   * Without `maxGatherMs` a write commits at the next turn whatever came with it (a tool's store, and tests
   * that count the turns a write takes); the daemon's store gathers for up to GATHER_WRITES_MS.
   */
  constructor(
    private readonly sqlite: Database.Database,
    { maxGatherMs = 0, now = () => performance.now() }: GatherOptions = {},
  ) {
    this.maxGatherMs = maxGatherMs;
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

  /**
   * Flushes at a later turn of the event loop, once as many writes are pending as the last commit held, or
   * at the first turn after waiting as long as that commit took (maxGatherMs at most). Clients that
   * each wait for their answer (8 connections, one request in flight on each) are all answered by one
   * commit, and their next requests arrive over the following fraction of a millisecond: flushed at the
   * first turn, the first one was committed alone (the loop blocked for its fsync) while the others queued
   * for the next commit, so two commits went to every round of them. Waiting for company costs no more
   * than the commit it may save. A client alone (the last commit held its one write) never waits; a write
   * after a larger commit may wait the whole time for company that does not come.
   */
  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    const round = ++this.flushRound;
    const gatherUntil = this.now() + Math.min(this.lastCommitMs, this.maxGatherMs);
    const flushOnceGathered = (): void => {
      if (!this.flushScheduled || round !== this.flushRound) return;
      const gathering = this.pending.length < this.lastBatchSize && this.holds === 0;
      if (gathering && this.now() < gatherUntil) setImmediate(flushOnceGathered);
      else this.flush();
    };
    setImmediate(flushOnceGathered);
  }

  /**
   * One transaction for the whole batch, one savepoint per write (prepared once: better-sqlite3's
   * nested transaction wrappers cost a tenth of a create). IMMEDIATE takes the write lock up front, so
   * a second connection waits (busy_timeout) instead of failing with SQLITE_BUSY on upgrade.
   */
  flush(): void {
    this.flushScheduled = false;
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
      this.lastCommitMs = this.now() - began;
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
