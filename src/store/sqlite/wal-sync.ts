import fs from 'node:fs';
import type Database from 'better-sqlite3';

/** What a commit waits for before its writers are answered: nothing, or the disk. */
export interface CommitDurability {
  /** Calls `done` once everything committed so far is on disk (with the error if the disk refused it). */
  afterCommit(done: (error: Error | null) => void): void;
  /** Puts everything committed so far on disk before returning (for writes made outside the group commit). */
  syncNow(): void;
  /** Calls `next` once no sync is under way (at once if none is). */
  whenIdle(next: () => void): void;
  /** Resolves once no commit is waiting for the disk. */
  settled(): Promise<void>;
  close(): void;
}

/** For connections that sync at each commit themselves (synchronous=FULL outside WAL, or NORMAL asked for). */
export const ALREADY_DURABLE: CommitDurability = {
  afterCommit: (done) => done(null),
  syncNow: () => undefined,
  whenIdle: (next) => next(),
  settled: async () => undefined,
  close: () => undefined,
};

/**
 * Takes the WAL's fsync off the event loop. With synchronous=FULL, SQLite fdatasyncs the WAL inside COMMIT,
 * on the thread that commits: a third of the daemon's loop under a stream of creates was spent waiting
 * there. Instead the connection commits with NORMAL (WAL mode stays crash-safe: SQLite still syncs around
 * checkpoints) and the WAL file is fdatasynced on libuv's thread pool; writers are answered only after a
 * sync that began after their commit, so an acknowledged write is on disk exactly as before. Commits made
 * while one sync runs wait for the next, which covers them all (a sync is of the whole file), so under load
 * the loop commits the next batch while the disk works on the last.
 *
 * Returns ALREADY_DURABLE, changing nothing, unless the connection is a WAL file at synchronous=FULL.
 */
export function syncCommitsOffLoop(sqlite: Database.Database): CommitDurability {
  if (sqlite.memory || sqlite.pragma('journal_mode', { simple: true }) !== 'wal') return ALREADY_DURABLE;
  if (sqlite.pragma('synchronous', { simple: true }) !== 2) return ALREADY_DURABLE;
  let fd: number;
  try {
    fd = fs.openSync(`${sqlite.name}-wal`, 'r+');
  } catch {
    return ALREADY_DURABLE;
  }
  sqlite.pragma('synchronous = NORMAL');
  return new WalSync(fd, `${sqlite.name}-wal`);
}

const open = new Set<WalSync>();

/**
 * Resolves once no commit of any store in this process is waiting for the disk, true if one was: for code
 * that must see writers answered without a clock to wait on (a test driving virtual time).
 */
export async function commitsSynced(): Promise<boolean> {
  const busy = [...open].filter((sync) => sync.busy);
  await Promise.all(busy.map((sync) => sync.settled()));
  return busy.length > 0;
}

export class WalSync implements CommitDurability {
  private waiting: Array<(error: Error | null) => void> = [];
  private syncing = false;
  /** After a failed sync the kernel may have dropped the pages it could not write: nothing later is trusted. */
  private failure: Error | null = null;
  private idle: Array<() => void> = [];

  constructor(
    private readonly fd: number,
    private readonly file: string,
  ) {
    open.add(this);
  }

  afterCommit(done: (error: Error | null) => void): void {
    if (this.failure) return done(this.failure);
    this.waiting.push(done);
    if (!this.syncing) this.startSync();
  }

  syncNow(): void {
    if (this.failure) throw this.failure;
    try {
      fs.fdatasyncSync(this.fd);
    } catch (error) {
      throw this.fail(error);
    }
  }

  get busy(): boolean {
    return this.syncing;
  }

  whenIdle(next: () => void): void {
    if (this.syncing) this.idle.push(next);
    else next();
  }

  settled(): Promise<void> {
    return new Promise((resolve) => this.whenIdle(resolve));
  }

  close(): void {
    open.delete(this);
    fs.closeSync(this.fd);
  }

  private startSync(): void {
    const batch = this.waiting;
    this.waiting = [];
    this.syncing = true;
    const synced = (error: Error | null) => {
      const outcome = error ? this.fail(error) : this.failure;
      for (const done of batch) done(outcome);
      if (this.waiting.length > 0) return this.startSync();
      this.syncing = false;
      for (const next of this.idle.splice(0)) next();
    };
    try {
      fs.fdatasync(this.fd, synced);
    } catch (error) {
      // A refusal thrown at once (a closed descriptor) is answered like one from the disk, never left hanging.
      setImmediate(() => synced(error instanceof Error ? error : new Error(String(error))));
    }
  }

  private fail(error: unknown): Error {
    const reason = error instanceof Error ? error.message : String(error);
    this.failure ??= new Error(
      `The disk did not confirm the store's writes (fdatasync of ${this.file}: ${reason}); check the disk and restart the daemon.`,
    );
    return this.failure;
  }
}
