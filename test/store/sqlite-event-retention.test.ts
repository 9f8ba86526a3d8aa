import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { newJob, stamp, T0 } from './conformance/fixtures.js';

describe('SQLite event retention', () => {
  let dir: string;
  let store: Store;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-event-retention-'));
    store = openSqliteStore(path.join(dir, 'sched.db'));
  });

  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** One `job:created` event per job, written at `at`. */
  async function eventsAt(prefix: string, ats: number[]): Promise<void> {
    for (const [index, at] of ats.entries())
      await store.createJob(newJob(`${prefix}-${index}`), stamp('job.create', at));
  }

  it('reads only the `limit` oldest events, so a pass over a store with none old does not read them all', async () => {
    // Written in this order: two events stamped late (the clock ahead), then two stamped early (set back).
    await eventsAt('ahead', [T0 + 60_000, T0 + 60_000]);
    await eventsAt('behind', [T0, T0]);

    expect(await store.pruneEvents(T0 + 1_000, 2)).toBe(0);
    expect(await store.pruneEvents(T0 + 1_000, 4)).toBe(2);
    const left = await store.readEvents({ after: 0, limit: 10 });
    expect(left.map((event) => event.at)).toEqual([T0 + 60_000, T0 + 60_000]);
  });

  it('deletes the old events of the window and keeps its newer ones', async () => {
    await eventsAt('mixed', [T0, T0 + 60_000, T0 + 1, T0 + 60_000]);

    expect(await store.pruneEvents(T0 + 1_000, 10)).toBe(2);
    const left = await store.readEvents({ after: 0, limit: 10 });
    expect(left.map((event) => event.at)).toEqual([T0 + 60_000, T0 + 60_000]);
  });
});
