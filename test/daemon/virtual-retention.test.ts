import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DaemonEvents } from '../../src/daemon/events.js';
import { Retention } from '../../src/daemon/retention.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { createJob, newRun, outcome, T0 } from '../store/conformance/fixtures.js';
import { FakeClock } from '../support/fake-clock.js';

const DAY = 86_400_000;

describe('retention on its own timer, in virtual time, on a real SQLite store', () => {
  let dir: string;
  let store: SqliteStore;
  let retention: Retention;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-retention-'));
    store = openSqliteStore(path.join(dir, 'sched.db'));
  });

  afterEach(async () => {
    await retention.stop();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A job with one run that succeeded at the start, and the succeeded counts of the passes heard. */
  async function oneSucceededRun() {
    const clock = new FakeClock(T0 + 61_000);
    const job = await createJob(store, 'old');
    const run = await store.insertRun(newRun(job.id, { state: 'running' }));
    await store.finishRun(run.id, outcome());
    const events = new DaemonEvents();
    const reports: number[] = [];
    events.on('retention:pruned', (report) => reports.push(report.succeeded));
    return { clock, job, events, reports };
  }

  it('given the default policy, keeps a succeeded run 90 days and prunes it at the first hourly pass after', async () => {
    const { clock, job, events, reports } = await oneSucceededRun();
    retention = new Retention(store, clock, events);
    retention.start();

    await clock.advance(90 * DAY - 61_000);
    expect((await store.listRuns({ jobId: job.id, limit: 10 })).items).toHaveLength(1);
    await clock.advance(DAY);

    expect((await store.listRuns({ jobId: job.id, limit: 10 })).items).toHaveLength(0);
    expect(reports.filter((succeeded) => succeeded > 0)).toEqual([1]);
    // A pass on the first delay (10 s), then one an hour.
    expect(reports).toHaveLength(1 + 91 * 24 - 1);
  });

  it('given a node that is not its cluster’s coordinator, prunes nothing until it is', async () => {
    const { clock, job, events, reports } = await oneSucceededRun();
    let coordinator = false;
    retention = new Retention(store, clock, events, {}, () => coordinator);
    retention.start();

    await clock.advance(92 * DAY);
    expect(reports).toEqual([]);
    expect((await store.listRuns({ jobId: job.id, limit: 10 })).items).toHaveLength(1);
    coordinator = true;
    await clock.advance(DAY);

    expect(reports.filter((succeeded) => succeeded > 0)).toEqual([1]);
    expect((await store.listRuns({ jobId: job.id, limit: 10 })).items).toHaveLength(0);
  });
});
