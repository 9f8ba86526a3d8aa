import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/daemon/clock.js';
import { IdempotencyGuard } from '../../src/daemon/idempotency-guard.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { newJob, stamp } from '../store/conformance/fixtures.js';

describe('a request with an idempotency key', () => {
  let dir: string;
  let store: SqliteStore | null = null;
  afterEach(async () => {
    await store?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('Given the same create sent twice at once (a retry while the first was still being made), then both get the one job, not NAME_TAKEN for the second', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-idempotency-'));
    store = openSqliteStore(path.join(dir, 'sched.db'));
    const guard = new IdempotencyGuard(store, systemClock);
    const request = { name: 'once-only', every: '1h' };
    const create = () =>
      guard.run('job.add', 'key-1', request, (claim) =>
        store!.createJob(newJob('once-only'), stamp('job.create'), claim),
      );

    const [first, second] = await Promise.all([create(), create()]);

    expect(second.id).toBe(first.id);
    expect((await store.listJobs({ limit: 10 })).items).toHaveLength(1);
  });
});
