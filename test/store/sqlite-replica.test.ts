import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
});
