import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalCopy } from '../../../src/store/local-copy/local-copy.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { createJob, T0 } from '../conformance/fixtures.js';

describe("a node's local copy of the job definitions", () => {
  let dir: string;
  let store: SqliteStore;
  let copy: LocalCopy;
  const file = () => path.join(dir, 'local-copy.db');

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-copy-'));
    store = openSqliteStore(path.join(dir, 'sched.db'));
    copy = LocalCopy.open(file());
  });

  afterEach(() => {
    copy.close();
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('Given a copy read whole from the store, when the node restarts, then it still finds the jobs by name or id and knows how old the copy is', async () => {
    const nightly = await createJob(store, 'nightly');
    const hourly = await createJob(store, 'hourly');
    copy.jobs.replaceAll([nightly, hourly], T0 + 5_000);

    copy.close();
    copy = LocalCopy.open(file());

    expect(copy.jobs.list().map((job) => job.name)).toEqual(['nightly', 'hourly']);
    expect(copy.jobs.find('hourly')).toEqual(hourly);
    expect(copy.jobs.find(nightly.id)?.name).toBe('nightly');
    expect(copy.jobs.refreshedAt()).toBe(T0 + 5_000);
  });

  it('Given a job changed as the node saw it, when it is kept, then the copy holds the new version; when not, it leaves the copy', async () => {
    const nightly = await createJob(store, 'nightly');
    copy.jobs.replaceAll([nightly], T0);

    copy.jobs.put({ ...nightly, name: 'nightly-2', version: 2 }, true);
    expect(copy.jobs.find('nightly-2')?.version).toBe(2);
    expect(copy.jobs.find('nightly')).toBeNull();

    copy.jobs.put(nightly, false);
    expect(copy.jobs.list()).toEqual([]);
  });

  it('Given a copy never read from the store, says so', () => {
    expect(copy.jobs.refreshedAt()).toBeNull();
    expect(copy.jobs.list()).toEqual([]);
  });
});
