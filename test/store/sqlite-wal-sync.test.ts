import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type Database from 'better-sqlite3';
import { openSqliteConnection } from '../../src/store/sqlite/connection.js';
import { GroupCommit } from '../../src/store/sqlite/group-commit.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import {
  ALREADY_DURABLE,
  WalSync,
  syncCommitsOffLoop,
  type CommitDurability,
} from '../../src/store/sqlite/wal-sync.js';
import { createJob } from './conformance/fixtures.js';

/** A disk whose syncs finish when the test says so. */
class HeldDisk implements CommitDurability {
  readonly syncs: Array<(error: Error | null) => void> = [];
  private idle: Array<() => void> = [];

  afterCommit(done: (error: Error | null) => void): void {
    this.syncs.push(done);
  }
  syncNow(): void {}
  whenIdle(next: () => void): void {
    if (this.syncs.length > 0) this.idle.push(next);
    else next();
  }
  async settled(): Promise<void> {}
  close(): void {}

  finishSync(error: Error | null = null): void {
    this.syncs.shift()?.(error);
    if (this.syncs.length === 0) for (const next of this.idle.splice(0)) next();
  }
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('SQLite commits synced off the event loop', () => {
  let dir: string;
  let file: string;
  const connections: Database.Database[] = [];

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-wal-sync-'));
    file = path.join(dir, 'sched.db');
  });

  afterEach(() => {
    for (const connection of connections.splice(0)) if (connection.open) connection.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function connect(options?: { synchronous?: 'FULL' | 'NORMAL' }): Database.Database {
    const connection = openSqliteConnection(file, options);
    connections.push(connection);
    connection.exec('CREATE TABLE IF NOT EXISTS items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)');
    return connection;
  }

  it('Given a WAL connection at synchronous FULL, when its commits are synced off the loop, then SQLite commits at NORMAL and the WAL is synced by the syncer', () => {
    const connection = connect();

    const durability = syncCommitsOffLoop(connection);

    expect(durability).toBeInstanceOf(WalSync);
    expect(connection.pragma('synchronous', { simple: true })).toBe(1);
    durability.close();
  });

  it('Given a connection that asked for NORMAL, when its commits would be synced off the loop, then nothing changes: it never promised a sync per commit', () => {
    const connection = connect({ synchronous: 'NORMAL' });

    expect(syncCommitsOffLoop(connection)).toBe(ALREADY_DURABLE);
    expect(connection.pragma('synchronous', { simple: true })).toBe(1);
  });

  it('Given writes committed, when the disk has not yet synced them, then no writer is answered until it has', async () => {
    const connection = connect();
    const disk = new HeldDisk();
    const commits = new GroupCommit(connection, disk);
    const answered: string[] = [];

    const writes = ['a', 'b'].map((name) =>
      commits
        .write(() => connection.prepare('INSERT INTO items (name) VALUES (?)').run(name))
        .then(() => answered.push(name)),
    );
    await turn();
    await turn();

    expect(connection.prepare('SELECT count(*) AS n FROM items').get()).toEqual({ n: 2 });
    expect(answered).toEqual([]);
    disk.finishSync();
    await Promise.all(writes);
    expect(answered).toEqual(['a', 'b']);
  });

  it('Given a sync under way, when more writes are asked for, then they commit together only once it ends', async () => {
    const connection = connect();
    const disk = new HeldDisk();
    const commits = new GroupCommit(connection, disk);
    const insert = (name: string) =>
      commits.write(() => connection.prepare('INSERT INTO items (name) VALUES (?)').run(name));

    const first = insert('a');
    await turn();
    const later = [insert('b'), insert('c')];
    await turn();
    await turn();

    expect(connection.prepare('SELECT count(*) AS n FROM items').get()).toEqual({ n: 1 });
    expect(commits.queued).toBe(2);
    disk.finishSync();
    await first;
    expect(connection.prepare('SELECT count(*) AS n FROM items').get()).toEqual({ n: 3 });
    expect(disk.syncs).toHaveLength(1);
    disk.finishSync();
    await Promise.all(later);
  });

  it.each([
    ['a descriptor the disk refuses', 2_147_483_000, /EBADF/],
    ['a descriptor refused before any I/O', -1, /out of range/],
  ])(
    'Given %s, when its writers are answered, then each is refused with what failed, and so is every later commit',
    async (_, fd, reason) => {
      const connection = connect();
      const disk = new WalSync(fd, `${file}-wal`);
      const commits = new GroupCommit(connection, disk);
      const insert = (name: string) =>
        commits.write(() => connection.prepare('INSERT INTO items (name) VALUES (?)').run(name));

      const refusal = insert('a');
      await expect(refusal).rejects.toThrow(
        /did not confirm the store's writes \(fdatasync of .*sched\.db-wal: /,
      );
      await expect(refusal).rejects.toThrow(reason);
      await expect(insert('b')).rejects.toThrow(/check the disk and restart the daemon/);
    },
  );

  it('Given a store with writes waiting for the disk, when it closes, then they are answered first and the data is there on reopening', async () => {
    const store = openSqliteStore(file);
    const created = Array.from({ length: 20 }, (_, index) => createJob(store, `job-${index}`));
    await turn();

    await store.close();

    expect(await Promise.all(created)).toHaveLength(20);
    const reopened = openSqliteStore(file);
    expect((await reopened.listJobs({ limit: 100 })).items).toHaveLength(20);
    await reopened.close();
  });
});
