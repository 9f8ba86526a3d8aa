import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { createJob, newRun, T0 } from './conformance/fixtures.js';

/** A LIMIT given as a bare bound value, which SQLite plans anew at every bind. */
const BARE_BOUND_LIMIT = /\blimit\s+\?/i;

describe('SQLite statements write their LIMIT so that binding it does not re-plan them', () => {
  let dir: string;
  let store: Store;
  const prepared = new Set<string>();
  const prepare = Database.prototype.prepare;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-row-limit-'));
    Database.prototype.prepare = function (this: Database.Database, source: string) {
      prepared.add(source);
      return prepare.call(this, source);
    } as typeof prepare;
    store = openSqliteStore(path.join(dir, 'sched.db'));
  });

  afterEach(async () => {
    Database.prototype.prepare = prepare;
    prepared.clear();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('has no bare `LIMIT ?` in any statement the store prepares, read or retention', async () => {
    const job = await createJob(store, 'limited', { labels: { team: 'a' } });
    const run = await store.insertRun(newRun(job.id, { scheduledFor: T0 }));
    await store.listJobs({ limit: 5 });
    await store.listJobs({ limit: 5, states: ['active'], labels: { team: 'a' }, owner: 'alice' });
    await store.listRuns({ jobId: job.id, limit: 10 });
    await store.listRuns({ limit: 10, states: ['scheduled'], labels: { team: 'a' } });
    await store.listDeliveries({ jobId: job.id, limit: 10 });
    await store.listDeliveries({ limit: 10, states: ['failed'] });
    await store.listOccurrences({ jobId: job.id, limit: 10 });
    await store.listRunsByInstant({ jobId: job.id, limit: 10 });
    await store.listAudit({ limit: 10 });
    await store.findRunIdsByPrefix(run.id.slice(0, 6), 5);
    await store.findJob('limited');
    await store.dueJobs(T0 + 3_600_000, 100);
    await store.dueRuns(T0 + 3_600_000, 100);
    await store.dueDeliveries(T0 + 3_600_000, 100);
    await store.readEvents({ after: 0, limit: 100 });
    await store.pruneRunsFinishedBefore(['succeeded'], T0, 100);
    await store.pruneRunsBeyond(0, 100);
    await store.pruneAudit(T0, 100);
    await store.purgeCancelledJobs(T0, 100);
    await store.pruneEvents(T0, 100);
    await store.pruneDeliveries(T0, 100);

    const limited = [...prepared].filter((source) => /\blimit\b/i.test(source));
    expect(limited.length).toBeGreaterThan(20);
    expect(limited.filter((source) => BARE_BOUND_LIMIT.test(source))).toEqual([]);
  });

  it('still returns as many rows as the limit says, and no more', async () => {
    const job = await createJob(store, 'many-runs');
    for (let i = 0; i < 5; i++) await store.insertRun(newRun(job.id, { scheduledFor: T0 + i * 60_000 }));
    for (let i = 0; i < 4; i++) await createJob(store, `more-${i}`);

    expect((await store.listRuns({ jobId: job.id, limit: 3 })).items).toHaveLength(3);
    expect((await store.listRuns({ jobId: job.id, limit: 10 })).items).toHaveLength(5);
    expect((await store.listJobs({ limit: 2 })).items).toHaveLength(2);
    expect(await store.dueRuns(T0 + 3_600_000, 4)).toHaveLength(4);
  });
});
