import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../../src/store/store.js';
import { createJob, newJob, newRun, outcome, stamp, T0 } from './fixtures.js';
import type { CurrentStore } from './fixtures.js';

export function describeEventCases(store: CurrentStore): void {
  describe('event outbox', () => {
    it('Given a job and a run through their lifecycle, when the events are read after 0, then each change wrote its event in order, marked with the node', async () => {
      store().markEventsWith('node-a');
      const job = await createJob(store(), 'nightly');
      const run = await store().insertRun(newRun(job.id, { state: 'running' }));
      await store().recordRunStarted({ runId: run.id, jobId: job.id, pid: 4242, at: T0 + 60_002 });
      expect(await store().findRun(run.id)).toMatchObject({ pid: 4242, startedAt: T0 + 60_002 });
      await store().finishRun(run.id, outcome({ state: 'failed', exitCode: 1 }));
      await store().cancelJob(job.id, job.version, T0 + 70_000, stamp('job.cancel', T0 + 70_000));

      const events = await store().readEvents({ after: 0, limit: 100 });

      expect(events.map((event) => event.type)).toEqual([
        'job:created',
        'run:fired',
        'run:started',
        'run:finished',
        'run:dead',
        'job:cancelled',
      ]);
      expect(events.every((event) => event.node === 'node-a')).toBe(true);
      expect(events.map((event) => event.id)).toEqual(
        [...events.map((event) => event.id)].sort((a, b) => a - b),
      );
      expect(events[2]).toMatchObject({
        runId: run.id,
        data: { runId: run.id, jobId: job.id, pid: 4242, at: T0 + 60_002 },
      });
      expect(events[3]?.data).toMatchObject({ id: run.id, state: 'failed', exitCode: 1 });
      expect((await store().findRun(run.id))?.pid).toBe(4242);
      expect(await store().latestEventId()).toBe(events.at(-1)?.id);
    });

    it('Given events of two nodes, when ids alone or the events without one node’s data are read, then both give the same ids in order, the asked-again ids among them, and that node’s data null', async () => {
      const before = await store().latestEventId();
      store().markEventsWith('node-a');
      const first = await createJob(store(), 'first');
      store().markEventsWith('node-b');
      const second = await createJob(store(), 'second');
      const third = await createJob(store(), 'third');
      const all = await store().readEvents({ after: before, limit: 10 });
      const ids = all.map((event) => event.id);
      expect(ids).toHaveLength(3);

      expect(await store().readEventIds({ after: before, limit: 10 })).toEqual(ids);
      expect(await store().readEventIds({ after: ids[0]!, limit: 1 })).toEqual([ids[1]]);
      // An id asked for again (seen missing before) comes first, as readEvents returns it.
      expect(await store().readEventIds({ after: ids[1]!, ids: [ids[0]!], limit: 10 })).toEqual([
        ids[0],
        ids[2],
      ]);
      const withoutB = await store().readEvents({ after: before, limit: 10, withoutDataOf: 'node-b' });
      expect(withoutB.map((event) => [event.id, event.node, event.jobId])).toEqual([
        [ids[0], 'node-a', first.id],
        [ids[1], 'node-b', second.id],
        [ids[2], 'node-b', third.id],
      ]);
      expect(withoutB.map((event) => event.data === null)).toEqual([false, true, true]);
      expect(withoutB[0]?.data).toMatchObject({ id: first.id, name: 'first' });
    });

    it('Given a change, when it commits, then the listeners get its events with their ids; a write that fails stores and hands over none', async () => {
      const heard: StoredEvent[] = [];
      const stop = store().onEventsStored((events) => heard.push(...events));
      const job = await createJob(store(), 'nightly');
      await expect(createJob(store(), 'nightly')).rejects.toMatchObject({ code: 'NAME_TAKEN' });
      stop();
      await createJob(store(), 'other');

      expect(heard).toHaveLength(1);
      expect(heard[0]).toMatchObject({
        type: 'job:created',
        jobId: job.id,
        data: { id: job.id, name: 'nightly' },
      });
      expect((await store().readEvents({ after: 0, limit: 10 })).map((event) => event.jobId)).toHaveLength(2);
    });

    it('Given a retried failure, when it finishes, then run:finished and run:retry-scheduled are stored and no run:dead', async () => {
      const job = await createJob(store(), 'nightly');
      const run = await store().insertRun(newRun(job.id, { state: 'running' }));
      const after = await store().latestEventId();

      await store().finishRun(
        run.id,
        outcome({ state: 'failed', exitCode: 1 }),
        newRun(job.id, { attempt: 2, dueAt: T0 + 90_000 }),
      );

      const events = await store().readEvents({ after, limit: 10 });
      expect(events.map((event) => event.type)).toEqual(['run:finished', 'run:retry-scheduled']);
    });

    it('Given a run started without a process (an HTTP run), when its start is stored, then its event says pid null and the run keeps none', async () => {
      const job = await createJob(store(), 'hook');
      const run = await store().insertRun(newRun(job.id, { state: 'running' }));
      const after = await store().latestEventId();

      await store().recordRunStarted({ runId: run.id, jobId: job.id, pid: null, at: T0 + 60_002 });

      expect(await store().readEvents({ after, limit: 10 })).toMatchObject([
        { type: 'run:started', runId: run.id, data: { runId: run.id, pid: null } },
      ]);
      expect((await store().findRun(run.id))?.pid).toBeNull();
    });

    it('Given output batches, when read back, then they come as run:output with their stream, text and number', async () => {
      const job = await createJob(store(), 'nightly');
      const run = await store().insertRun(newRun(job.id, { state: 'running' }));
      const after = await store().latestEventId();
      const text = 'line\u0000 with a NUL\n';
      await store().appendRunOutput({
        runId: run.id,
        jobId: job.id,
        stream: 'stdout',
        data: text,
        seq: 1,
        at: T0,
      });

      const [event] = await store().readEvents({ after, limit: 10 });
      expect(event).toMatchObject({
        type: 'run:output',
        runId: run.id,
        data: { runId: run.id, stream: 'stdout', data: text, seq: 1 },
      });
    });

    it('Given many events, when reading with a limit and ids asked for again, then pages follow id order and the ids come back too', async () => {
      for (let index = 0; index < 5; index += 1) await createJob(store(), `job-${index}`);
      const all = await store().readEvents({ after: 0, limit: 100 });
      const ids = all.map((event) => event.id);

      const page = await store().readEvents({ after: ids[2] as number, ids: [ids[0] as number], limit: 1 });

      expect(page.map((event) => event.id)).toEqual([ids[0], ids[3]]);
    });

    it('Given old and new events, when pruned before an instant in batches, then the oldest go first and the newer stay', async () => {
      for (let index = 0; index < 4; index += 1)
        await store().createJob(newJob(`job-${index}`), stamp('job.create', T0 + index * 1_000));

      expect(await store().pruneEvents(T0 + 2_500, 2)).toBe(2);
      expect(await store().pruneEvents(T0 + 2_500, 2)).toBe(1);
      const left = await store().readEvents({ after: 0, limit: 10 });
      expect(left.map((event) => event.at)).toEqual([T0 + 3_000]);
    });
  });
}
