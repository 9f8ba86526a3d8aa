import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NotifyMessage } from '../../src/core/notify/message.js';
import { DaemonEvents } from '../../src/daemon/events.js';
import { NotificationDispatcher } from '../../src/daemon/notify/dispatcher.js';
import { OverdueWatch } from '../../src/daemon/notify/overdue-watch.js';
import { newId } from '../../src/store/ids.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { FakeClock, FAKE_EPOCH, settle } from '../support/fake-clock.js';
import { definition } from '../store/conformance/fixtures.js';

const TARGET = 'https://hooks.example/overdue';

describe('the overdue watch and the dispatcher on virtual time', () => {
  let dir: string;
  let store: Store;
  let clock: FakeClock;
  const events = new DaemonEvents();

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-overdue-'));
    store = openSqliteStore(path.join(dir, 'sched.db'));
    clock = new FakeClock();
  });

  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function watchedJob(everyMs: number) {
    return store.createJob(
      {
        id: newId(),
        definition: {
          ...definition('heartbeat'),
          alerts: { notify: [TARGET], notifyOn: ['overdue', 'recovered'], expectSuccessEveryMs: everyMs },
        },
        owner: 'test',
        now: FAKE_EPOCH,
        nextRunAt: null,
      },
      { id: newId(), at: FAKE_EPOCH, actor: 'test', action: 'job.create' },
    );
  }

  function watch() {
    return new OverdueWatch({
      store,
      clock,
      events,
      newId,
      node: 'node-a',
      defaults: { targets: [], on: null },
      onDeliveries: () => undefined,
    });
  }

  it('Given a job expected to succeed every 3s, when 3s pass without a success, then it is marked overdue once, even by a second watch (a restart)', async () => {
    const job = await watchedJob(3_000);
    await watch().check();
    expect(await store.listOverdue()).toEqual([]);

    await clock.advance(3_000);
    await watch().check();
    await watch().check();

    expect(await store.listOverdue()).toEqual([{ jobId: job.id, since: FAKE_EPOCH + 3_000 }]);
    const deliveries = await store.listDeliveries({ limit: 10 });
    expect(deliveries.map((row) => row.kind)).toEqual(['overdue']);
    const [note] = await store.listOccurrences({ jobId: job.id, limit: 10 });
    expect(note).toMatchObject({ outcome: 'overdue', scheduledFor: FAKE_EPOCH + 3_000 });
  });

  it('Given an overdue job, when a run succeeds, then the mark clears and one recovered delivery is stored', async () => {
    const job = await watchedJob(3_000);
    await clock.advance(4_000);
    const overdue = watch();
    await overdue.check();
    expect(overdue.overdueJobs().get(job.id)?.since).toBe(FAKE_EPOCH + 3_000);
    const run = await store.insertRun({
      id: newId(),
      jobId: job.id,
      scheduledFor: clock.now(),
      attempt: 1,
      trigger: 'ping',
      node: 'node-a',
      fence: 1,
      now: clock.now(),
      state: 'running',
      dueAt: clock.now(),
    });
    await store.finishRun(run.id, {
      state: 'succeeded',
      finishedAt: clock.now(),
      exitCode: 0,
      signal: null,
      error: null,
      stdoutTail: '',
      stderrTail: '',
    });

    await overdue.check();
    await overdue.check();

    expect(await store.listOverdue()).toEqual([]);
    expect(overdue.overdueJobs().size).toBe(0);
    const kinds = (await store.listDeliveries({ limit: 10 })).map((row) => [row.kind, row.runId]);
    expect(kinds).toEqual([
      ['recovered', run.id],
      ['overdue', null],
    ]);
  });

  it('Given a target that refuses, when the dispatcher runs on virtual time, then it retries with backoff and records the delivery once it is answered', async () => {
    const job = await watchedJob(3_000);
    await clock.advance(3_000);
    await watch().check();
    const answers = [false, false, true];
    const sent: NotifyMessage[] = [];
    const dispatcher = new NotificationDispatcher({
      store,
      clock,
      events,
      newId,
      throttle: { maxPerWindow: 5, windowMs: 3_600_000 },
      send: async (_target, message) => {
        sent.push(message);
        const ok = answers.shift() ?? true;
        return { ok, answer: ok ? 'HTTP 200' : 'HTTP 503' };
      },
    });
    await dispatcher.start();

    for (let i = 0; i < 20 && sent.length < 3; i += 1) {
      await settle();
      await clock.advance(1_000);
    }
    await settle();
    await dispatcher.stop();

    expect(sent.map((message) => message.event)).toEqual(['overdue', 'overdue', 'overdue']);
    expect(sent[0]!.sentence).toContain('heartbeat is overdue');
    const [delivery] = await store.listDeliveries({ limit: 10, jobId: job.id });
    expect(delivery).toMatchObject({ state: 'delivered', attempts: 3, answer: 'HTTP 200' });
  });
});
