import type Database from 'better-sqlite3';

interface PendingWrite {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: every write asked for in one turn of the event loop runs in one transaction, each in its
 * own savepoint (so one failing write does not undo the others), and each promise settles only after the
 * commit, so an acknowledged write is on disk (synchronous=FULL) without one fsync per request.
 */
export class GroupCommit {
  private pending: PendingWrite[] = [];
  private flushScheduled = false;
  private holds = 0;
  private readonly savepoint: Database.Statement;
  private readonly releaseSavepoint: Database.Statement;
  private readonly rollbackToSavepoint: Database.Statement;

  constructor(private readonly sqlite: Database.Database) {
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

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
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
    try {
      this.sqlite
        .transaction(() => {
          for (const write of batch) results.push(this.inSavepoint(write.work));
        })
        .immediate();
    } catch (error) {
      for (const write of batch) write.reject(error);
      return;
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
