import { describe, expect, it } from 'vitest';
import type { NewDelivery } from '../../../src/core/notify/delivery.js';
import { newId } from '../../../src/store/ids.js';
import type { Store } from '../../../src/store/store.js';
import { createJob, newRun, outcome, T0 } from './fixtures.js';
import type { CurrentStore } from './fixtures.js';

function deadDelivery(jobId: string, runId: string): NewDelivery {
  return {
    id: newId(),
    jobId,
    runId,
    kind: 'dead',
    target: 'https://hooks.example/a',
    dedupKey: `dead:${runId}`,
    dueAt: T0,
    createdAt: T0,
    detail: '',
  };
}

async function lastEventId(store: Store): Promise<number> {
  return store.latestEventId();
}

export function describeRunEndBatchCases(store: CurrentStore): void {
  describe('finishRuns', () => {
    it('Given three running runs, when their ends are recorded together, then each keeps its own outcome (tails, bytes, status, headers) as finishRun would, with its events in order', async () => {
      const job = await createJob(store(), 'nightly');
      const [command, failing, hook] = await Promise.all(
        [1, 2, 3].map((offset) =>
          store().insertRun(newRun(job.id, { state: 'running', scheduledFor: T0 + offset })),
        ),
      );
      await store().setRunPid(command!.id, 4242);
      const after = await lastEventId(store());

      const finished = await store().finishRuns([
        {
          runId: command!.id,
          outcome: outcome({ stdoutTail: 'out\u0000put\n', stdoutBytes: 5_000_000_000 }),
        },
        {
          runId: failing!.id,
          outcome: outcome({ state: 'failed', exitCode: 3, error: 'exit 3', stderrTail: 'boom\n' }),
        },
        {
          runId: hook!.id,
          outcome: outcome({
            exitCode: null,
            httpStatus: 204,
            responseHeaders: { 'content-type': 'text/plain' },
            stdoutTail: '',
          }),
        },
      ]);

      expect(finished.map((end) => end?.retry)).toEqual([null, null, null]);
      expect(finished[0]?.run).toMatchObject({
        state: 'succeeded',
        pid: 4242,
        jobName: 'nightly',
        stdoutTail: 'out\u0000put\n',
        stdoutBytes: 5_000_000_000,
        finishedAt: T0 + 61_000,
      });
      expect(finished[1]?.run).toMatchObject({
        state: 'failed',
        exitCode: 3,
        error: 'exit 3',
        stderrTail: 'boom\n',
      });
      expect(finished[2]?.run).toMatchObject({
        httpStatus: 204,
        responseHeaders: { 'content-type': 'text/plain' },
      });
      for (const end of finished) expect(await store().findRun(end!.run.id)).toEqual(end!.run);
      const events = await store().readEvents({ after, limit: 100 });
      expect(events.map((event) => [event.type, event.runId])).toEqual([
        ['run:finished', command!.id],
        ['run:finished', failing!.id],
        ['run:dead', failing!.id],
        ['run:finished', hook!.id],
      ]);
      expect(events[0]?.data).toEqual(finished[0]?.run);
    });

    it('Given a batch with a run already ended and a run that does not exist, when it is recorded, then those two get null and write nothing, and the running one is finished', async () => {
      const job = await createJob(store(), 'nightly');
      const ended = await store().insertRun(newRun(job.id, { state: 'running', scheduledFor: T0 + 1 }));
      const { run: firstEnd } = await store().finishRun(
        ended.id,
        outcome({ state: 'lost', finishedAt: T0 + 5 }),
      );
      const running = await store().insertRun(newRun(job.id, { state: 'running', scheduledFor: T0 + 2 }));
      const after = await lastEventId(store());

      const finished = await store().finishRuns([
        {
          runId: ended.id,
          outcome: outcome({ state: 'failed' }),
          retry: newRun(job.id, { scheduledFor: T0 + 1, attempt: 2, trigger: 'retry' }),
          deliveries: [deadDelivery(job.id, ended.id)],
        },
        { runId: 'missing', outcome: outcome() },
        { runId: running.id, outcome: outcome() },
      ]);

      expect(finished[0]).toBeNull();
      expect(finished[1]).toBeNull();
      expect(finished[2]?.run).toMatchObject({ id: running.id, state: 'succeeded' });
      expect(await store().findRun(ended.id)).toEqual(firstEnd);
      expect((await store().listRuns({ jobId: job.id, limit: 10 })).items).toHaveLength(2);
      expect(await store().listDeliveries({ limit: 10 })).toEqual([]);
      const events = await store().readEvents({ after, limit: 100 });
      expect(events.map((event) => [event.type, event.runId])).toEqual([['run:finished', running.id]]);
    });

    it('Given a failed run with a retry and a notification beside a run that succeeded, when their ends are recorded together, then the retry waits, the failed run points at it, and the notification is pending', async () => {
      const job = await createJob(store(), 'nightly');
      const failing = await store().insertRun(newRun(job.id, { state: 'running', scheduledFor: T0 + 1 }));
      const passing = await store().insertRun(newRun(job.id, { state: 'running', scheduledFor: T0 + 2 }));
      const notice = deadDelivery(job.id, failing.id);
      const after = await lastEventId(store());

      const [retried, succeeded] = await store().finishRuns([
        {
          runId: failing.id,
          outcome: outcome({ state: 'failed', exitCode: 1 }),
          retry: newRun(job.id, {
            id: 'retry-1',
            scheduledFor: T0 + 1,
            attempt: 2,
            trigger: 'retry',
            dueAt: T0 + 70_000,
          }),
          deliveries: [notice],
        },
        { runId: passing.id, outcome: outcome() },
      ]);

      expect(retried?.run.retriedBy).toBe('retry-1');
      expect(retried?.retry).toMatchObject({
        id: 'retry-1',
        attempt: 2,
        state: 'scheduled',
        dueAt: T0 + 70_000,
      });
      expect(succeeded).toMatchObject({ run: { state: 'succeeded' }, retry: null });
      expect((await store().dueRuns(T0 + 70_000, 10)).map((due) => due.id)).toEqual(['retry-1']);
      expect((await store().listDeliveries({ limit: 10 })).map((row) => row.id)).toEqual([notice.id]);
      const events = await store().readEvents({ after, limit: 100 });
      expect(events.map((event) => [event.type, event.runId])).toEqual([
        ['run:finished', failing.id],
        ['run:retry-scheduled', 'retry-1'],
        ['run:finished', passing.id],
      ]);
    });

    it('Given a batch whose retry names an attempt already taken, when it is recorded, then nothing of the batch is written', async () => {
      const job = await createJob(store(), 'nightly');
      const failing = await store().insertRun(newRun(job.id, { state: 'running', scheduledFor: T0 + 1 }));
      const passing = await store().insertRun(newRun(job.id, { state: 'running', scheduledFor: T0 + 2 }));
      // The attempt the retry would be is there already.
      await store().insertRun(newRun(job.id, { scheduledFor: T0 + 1, attempt: 2 }));

      await expect(
        store().finishRuns([
          { runId: passing.id, outcome: outcome() },
          {
            runId: failing.id,
            outcome: outcome({ state: 'failed' }),
            retry: newRun(job.id, { scheduledFor: T0 + 1, attempt: 2, trigger: 'retry' }),
          },
        ]),
      ).rejects.toMatchObject({ code: 'INVALID_STATE' });

      expect((await store().findRun(passing.id))?.state).toBe('running');
      expect((await store().findRun(failing.id))?.state).toBe('running');
    });

    it('Given a batch that names one run twice, when it is recorded, then it is refused and the run is left running', async () => {
      const job = await createJob(store(), 'nightly');
      const run = await store().insertRun(newRun(job.id, { state: 'running' }));

      await expect(
        store().finishRuns([
          { runId: run.id, outcome: outcome() },
          { runId: run.id, outcome: outcome({ state: 'failed' }) },
        ]),
      ).rejects.toThrow(/twice/);

      expect((await store().findRun(run.id))?.state).toBe('running');
    });

    it('Given no ends, when they are recorded, then nothing is written and nothing comes back', async () => {
      const after = await lastEventId(store());

      expect(await store().finishRuns([])).toEqual([]);

      expect(await lastEventId(store())).toBe(after);
    });
  });

  describe('recordRunsStarted', () => {
    it('Given three running runs, two with a pid, when their starts are recorded together, then each pid and start is stored, the one without a pid keeps its row as it was, and their run:started events come in order, announced to listeners', async () => {
      store().markEventsWith('node-a');
      const job = await createJob(store(), 'nightly');
      const runs = await Promise.all(
        [1, 2, 3].map((offset) =>
          store().insertRun(newRun(job.id, { state: 'running', scheduledFor: T0 + offset })),
        ),
      );
      const heard: string[] = [];
      const stopListening = store().onEventsStored((events) => {
        for (const event of events) heard.push(`${event.type} ${event.runId}`);
      });
      const after = await lastEventId(store());

      await store().recordRunsStarted([
        { runId: runs[0]!.id, jobId: job.id, pid: 4242, at: T0 + 10 },
        { runId: runs[1]!.id, jobId: job.id, pid: null, at: T0 + 11 },
        { runId: runs[2]!.id, jobId: job.id, pid: 4343, at: T0 + 12 },
      ]);
      stopListening();

      expect(await Promise.all(runs.map(async (run) => (await store().findRun(run.id))?.pid))).toEqual([
        4242,
        null,
        4343,
      ]);
      // A run's start is its spawn, recorded here: after whatever its fire or claim waited for. A start
      // without a pid writes its event alone: its instant comes with the run's end (the next case).
      expect(await Promise.all(runs.map(async (run) => (await store().findRun(run.id))?.startedAt))).toEqual([
        T0 + 10,
        runs[1]!.startedAt,
        T0 + 12,
      ]);
      const events = await store().readEvents({ after, limit: 100 });
      expect(events.map((event) => [event.type, event.runId, event.node])).toEqual(
        runs.map((run) => ['run:started', run.id, 'node-a']),
      );
      expect(events[1]?.data).toEqual({ runId: runs[1]!.id, jobId: job.id, pid: null, at: T0 + 11 });
      expect(heard).toEqual(runs.map((run) => `run:started ${run.id}`));
    });

    it('Given a run whose start stored only its event, when its end brings the start, then the run keeps that start; an end without one keeps the start stored', async () => {
      const job = await createJob(store(), 'nightly');
      const [hook, command] = await Promise.all(
        [1, 2].map((offset) =>
          store().insertRun(newRun(job.id, { state: 'running', scheduledFor: T0 + offset })),
        ),
      );
      await store().recordRunsStarted([
        { runId: hook!.id, jobId: job.id, pid: null, at: T0 + 20 },
        { runId: command!.id, jobId: job.id, pid: 4242, at: T0 + 21 },
      ]);
      expect((await store().findRun(hook!.id))?.startedAt).toBe(hook!.startedAt);

      const finished = await store().finishRuns([
        { runId: hook!.id, outcome: outcome({ exitCode: null, httpStatus: 200 }), startedAt: T0 + 20 },
        { runId: command!.id, outcome: outcome() },
      ]);

      expect(finished.map((end) => end?.run.startedAt)).toEqual([T0 + 20, T0 + 21]);
      expect((await store().findRun(hook!.id))?.startedAt).toBe(T0 + 20);
      expect((await store().findRun(command!.id))?.startedAt).toBe(T0 + 21);
    });

    it('Given no starts, when they are recorded, then nothing is written', async () => {
      const after = await lastEventId(store());

      await store().recordRunsStarted([]);

      expect(await lastEventId(store())).toBe(after);
    });
  });
}
