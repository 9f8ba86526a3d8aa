import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { createJob } from './conformance/fixtures.js';

describe('A SQLite store as a replica of the replicated log', () => {
  let dir: string;
  let file: string;
  let store: SqliteStore;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-replica-'));
    file = path.join(dir, 'sched.db');
    store = openSqliteStore(file, { synchronous: 'NORMAL', checkpointEveryPages: 10_000 });
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const walBytes = () => fs.statSync(`${file}-wal`).size;

  it('Given a copy whose applied index has not moved since its last commit, when it is kept in place, then a commit is written (and synced) every time, and the copy commits without syncing again after', async () => {
    await createJob(store, 'applied');
    await store.replica.recordApplied(7);
    const before = walBytes();

    expect(store.replica.keepInPlace()).toEqual({ appliedIndex: 7, inPlace: true });
    const once = walBytes();
    store.replica.keepInPlace();

    // A commit writing a value already there writes no frame, and a commit with no frame syncs nothing.
    expect(once).toBeGreaterThan(before);
    expect(walBytes()).toBeGreaterThan(once);
    expect(store.replica.appliedIndex()).toBe(7);
    expect(store.replica.copy().tables.meta).not.toContainEqual(
      expect.objectContaining({ key: 'replica_kept' }),
    );
  });

  describe('copied to a file, and another replica restored from it', () => {
    let other: SqliteStore;
    beforeEach(() => {
      other = openSqliteStore(path.join(dir, 'other.db'));
    });
    afterEach(async () => {
      await other.close();
    });

    async function copied(): Promise<string> {
      await createJob(store, 'copied');
      await store.replica.recordApplied(9);
      const copy = path.join(dir, 'copy.db');
      expect(await store.replica.copyTo(copy)).toBe(9);
      return copy;
    }

    it('Given a copy of a replica, when another replica is replaced with it, then it holds the copy’s rows as of its index, and keeps its own', async () => {
      const copy = await copied();
      await createJob(other, 'only-here');
      const fence = await other.nextFenceEpoch();

      expect(other.replica.refusalOf(copy)).toBeNull();
      expect(await other.replica.replaceWithFile(copy)).toBe(9);

      expect((await other.listJobs({ limit: 10 })).items.map((job) => job.name)).toEqual(['copied']);
      expect(other.replica.appliedIndex()).toBe(9);
      expect(await other.nextFenceEpoch()).toBe(fence + 1);
      expect(other.replica.copy().tables).toEqual(store.replica.copy().tables);
    });

    it('Given a copy being taken in, then meanwhile reads see the rows as they were, a second one is refused, and a write asked for waits and commits after it', async () => {
      const copy = await copied();
      await createJob(other, 'only-here');
      const fence = await other.nextFenceEpoch();
      const order: string[] = [];

      const taking = other.replica.replaceWithFile(copy).then((index) => {
        order.push('taken');
        return index;
      });
      // The worker's connection takes the rows in: this one reads them as they were until it commits.
      expect((await other.listJobs({ limit: 10 })).items.map((job) => job.name)).toEqual(['only-here']);
      await expect(other.replica.replaceWithFile(copy)).rejects.toThrow(/being taken in already/);
      const written = other.nextFenceEpoch().then((epoch) => {
        order.push('written');
        return epoch;
      });

      expect(await taking).toBe(9);
      expect(await written).toBe(fence + 1);
      expect(order).toEqual(['taken', 'written']);
      expect((await other.listJobs({ limit: 10 })).items.map((job) => job.name)).toEqual(['copied']);
    });

    it('Given a copy being taken in, when the store is closed, then it is given up and the rows stay as they were', async () => {
      const copy = await copied();
      await createJob(other, 'only-here');

      const taking = other.replica.replaceWithFile(copy);
      await other.close();
      await expect(taking).rejects.toThrow(/given up as the store closed/);

      other = openSqliteStore(path.join(dir, 'other.db'));
      expect((await other.listJobs({ limit: 10 })).items.map((job) => job.name)).toEqual(['only-here']);
      expect(other.replica.appliedIndex()).toBe(0);
    });

    it('Given a copy whose table has another column, when it is offered, then it is refused with the reason, and replacing with it changes nothing', async () => {
      const copy = await copied();
      const altered = openSqliteStore(copy);
      await altered.close();
      const raw = new Database(copy);
      raw.exec('ALTER TABLE jobs ADD COLUMN surprise TEXT');
      raw.close();
      await createJob(other, 'only-here');

      expect(other.replica.refusalOf(copy)).toMatch(/table jobs has columns .*surprise/);
      await expect(other.replica.replaceWithFile(copy)).rejects.toThrow(/cannot be restored from/);
      expect((await other.listJobs({ limit: 10 })).items.map((job) => job.name)).toEqual(['only-here']);
    });

    it('Given a file that is not a database, when it is offered, then it is refused, saying so', async () => {
      const garbage = path.join(dir, 'garbage.db');
      fs.writeFileSync(garbage, Buffer.alloc(8192, 7));

      expect(other.replica.refusalOf(garbage)).toMatch(/not a database/);
    });
  });
});
