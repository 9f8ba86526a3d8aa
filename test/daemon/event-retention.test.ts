import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DaemonEvents } from '../../src/daemon/events.js';
import { Retention } from '../../src/daemon/retention.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { FakeClock } from '../support/fake-clock.js';
import { newJob, stamp } from '../store/conformance/fixtures.js';

const DAY = 86_400_000;

describe('retention of the event log', () => {
  let dir: string;
  let store: Store;

  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('given events older and newer than event_days, when retention runs, then the older go, oldest first in batches, and the newer stay', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-event-retention-'));
    store = openSqliteStore(path.join(dir, 'sched.db'));
    const clock = new FakeClock();
    const now = clock.now();
    for (let index = 0; index < 600; index += 1)
      await store.createJob(newJob(`old-${index}`), stamp('job.create', now - 3 * DAY + index));
    await store.createJob(newJob('recent'), stamp('job.create', now - DAY / 2));

    const report = await new Retention(store, clock, new DaemonEvents(), { eventDays: 2 }).prune();

    expect(report.events).toBe(600);
    const left = await store.readEvents({ after: 0, limit: 10 });
    expect(left).toHaveLength(1);
    expect(left[0]).toMatchObject({ type: 'job:created', data: { name: 'recent' } });
  });
});

describe('retention of notification deliveries', () => {
  let dir: string;
  let store: Store;

  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('given deliveries settled before and after failed_days and one still pending, when retention runs, then only the old settled ones go', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-delivery-retention-'));
    store = openSqliteStore(path.join(dir, 'sched.db'));
    const clock = new FakeClock();
    const now = clock.now();
    const job = await store.createJob(newJob('nightly'), stamp('job.create', now - 40 * DAY));
    const row = (key: string, createdAt: number) => ({
      id: `delivery-${key}`,
      jobId: job.id,
      runId: null,
      kind: 'dead' as const,
      target: 'https://hooks.example/a',
      dedupKey: key,
      dueAt: createdAt,
      createdAt,
      detail: '',
    });
    await store.enqueueDeliveries([
      row('old', now - 40 * DAY),
      row('recent', now - DAY),
      row('stuck', now - 40 * DAY),
    ]);
    for (const [key, finishedAt] of [
      ['old', now - 40 * DAY],
      ['recent', now - DAY],
    ] as const)
      await store.recordDeliveryAttempt(`delivery-${key}`, {
        state: 'delivered',
        attempts: 1,
        dueAt: finishedAt,
        finishedAt,
        answer: 'HTTP 204',
        lastError: null,
      });

    const report = await new Retention(store, clock, new DaemonEvents(), { failedDays: 30 }).prune();

    expect(report.deliveries).toBe(1);
    const left = await store.listDeliveries({ limit: 10 });
    expect(left.map((delivery) => delivery.id).sort()).toEqual(['delivery-recent', 'delivery-stuck']);
  });
});
