import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MAX_BATCH_BYTES,
  MAX_RELAYED_BYTES_PER_RUN,
  OUTPUT_BATCH_MS,
  RunOutputRelay,
} from '../../src/daemon/run-output-relay.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { FakeClock } from '../support/fake-clock.js';
import { createJob, newRun } from '../store/conformance/fixtures.js';

interface Batch {
  stream: string;
  data: string;
  seq: number;
}

describe("a running run's output, stored in batches for other nodes", () => {
  let dir: string;
  let store: Store;
  let clock: FakeClock;
  let relay: RunOutputRelay;
  let runId: string;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-output-relay-'));
    store = openSqliteStore(path.join(dir, 'sched.db'));
    clock = new FakeClock();
    const job = await createJob(store, 'printer');
    runId = (await store.insertRun(newRun(job.id, { state: 'running' }))).id;
    relay = new RunOutputRelay({
      store,
      clock,
      jobIdOf: (id) => (id === runId ? job.id : undefined),
      onError: (error) => {
        throw error;
      },
    });
  });

  afterEach(async () => {
    relay.stop();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const batches = async (): Promise<Batch[]> =>
    (await store.readRunOutput(runId)).map((event) => event.data as Batch);

  it('given chunks within one batch time, when the time is up, then they are stored as one batch a stream, numbered in order', async () => {
    relay.add(runId, 'stdout', 'one\n');
    relay.add(runId, 'stdout', 'two\n');
    relay.add(runId, 'stderr', 'oops\n');
    expect(await batches()).toEqual([]);

    await clock.advance(OUTPUT_BATCH_MS);

    expect(await batches()).toEqual([
      { runId, stream: 'stdout', data: 'one\ntwo\n', seq: 1 },
      { runId, stream: 'stderr', data: 'oops\n', seq: 2 },
    ]);
  });

  it('given more than a batch holds, when stored, then the batch is cut at its bound and a line on stderr says how much was not relayed', async () => {
    relay.add(runId, 'stdout', 'x'.repeat(MAX_BATCH_BYTES + 1_000));

    await relay.flush(runId);

    const [stdout, stderr] = await batches();
    expect(Buffer.byteLength(stdout!.data)).toBe(MAX_BATCH_BYTES);
    expect(stderr!.data).toContain('1000 bytes of this run');
    expect(stderr!.data).toContain(`sched logs ${runId}`);
  });

  it('given a run that prints more than a run may relay, when stored batch after batch, then what is stored stays within the bound', async () => {
    const chunk = 'y'.repeat(MAX_BATCH_BYTES);
    for (let index = 0; index < MAX_RELAYED_BYTES_PER_RUN / MAX_BATCH_BYTES + 4; index += 1) {
      relay.add(runId, 'stdout', chunk);
      await clock.advance(OUTPUT_BATCH_MS);
    }
    await relay.flush(runId);

    const stdout = (await batches()).filter((batch) => batch.stream === 'stdout');
    const stored = stdout.reduce((sum, batch) => sum + Buffer.byteLength(batch.data), 0);
    expect(stored).toBe(MAX_RELAYED_BYTES_PER_RUN);
  });
});
