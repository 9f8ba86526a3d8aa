import { describe, expect, it } from 'vitest';
import type { ConcurrencyPolicy } from '../../../src/core/policy/overlap.js';
import type { Fire, NewOccurrence, Store } from '../../../src/store/store.js';
import { createJob, newRun, T0 } from './fixtures.js';
import type { CurrentStore } from './fixtures.js';

const MINUTE = 60_000;
const DUE = T0 + MINUTE;

/** The fire of the job's instant DUE, its run asked to start now on node-a. */
function fireOf(jobId: string, options: { concurrency?: ConcurrencyPolicy; host?: string } = {}): Fire {
  return {
    jobId,
    runs: [newRun(jobId, { scheduledFor: DUE, node: 'node-a', state: 'running', host: options.host })],
    occurrences: [],
    expectedNextRunAt: DUE,
    nextRunAt: DUE + MINUTE,
    concurrency: options.concurrency,
  };
}

function dstSkipped(jobId: string): NewOccurrence {
  return {
    jobId,
    scheduledFor: DUE - 1,
    wall: '2030-03-31T02:30',
    outcome: 'dst-skipped',
    reason: 'the wall time did not exist',
    node: 'node-a',
    decidedAt: DUE,
  };
}

async function runsOf(store: Store, jobId: string) {
  return (await store.listRuns({ jobId, limit: 100 })).items;
}

export function describeFireBatchCases(store: CurrentStore): void {
  describe('recordFires', () => {
    it('Given three due jobs, when their fires are recorded together, then each gets its run, its ledger records, its next instant and one run:fired event', async () => {
      const jobs = [
        await createJob(store(), 'a', { nextRunAt: DUE }),
        await createJob(store(), 'b', { nextRunAt: DUE }),
        await createJob(store(), 'c', { nextRunAt: DUE }),
      ];
      const after = (await store().readEvents({ after: 0, limit: 1000 })).at(-1)?.id ?? 0;
      const fires = jobs.map((job) => ({ ...fireOf(job.id), occurrences: [dstSkipped(job.id)] }));

      const fired = await store().recordFires(fires);

      expect(fired.map((one) => one?.runs.map((run) => [run.id, run.jobName, run.state]))).toEqual(
        fires.map((fire, index) => [[fire.runs[0]!.id, jobs[index]!.name, 'running']]),
      );
      for (const [index, job] of jobs.entries()) {
        expect(await store().findRun(fires[index]!.runs[0]!.id)).toEqual(fired[index]!.runs[0]);
        expect((await store().findJob(job.id))?.nextRunAt).toBe(DUE + MINUTE);
        const ledger = await store().listOccurrences({ jobId: job.id, limit: 10 });
        expect(ledger.map((entry) => entry.outcome)).toEqual(['dst-skipped']);
      }
      const events = await store().readEvents({ after, limit: 100 });
      expect(events.map((event) => [event.type, event.runId])).toEqual(
        fires.map((fire) => ['run:fired', fire.runs[0]!.id]),
      );
      expect(events.map((event) => event.data)).toEqual(fired.map((one) => one!.runs[0]));
    });

    it('Given one of the jobs fired meanwhile, when the batch is recorded, then that fire gets null and writes nothing, and the others fire', async () => {
      const fresh = await createJob(store(), 'fresh', { nextRunAt: DUE });
      const moved = await createJob(store(), 'moved', { nextRunAt: DUE + MINUTE });
      const stale = { ...fireOf(moved.id), occurrences: [dstSkipped(moved.id)] };

      const fired = await store().recordFires([fireOf(fresh.id), stale]);

      expect(fired[0]?.runs).toHaveLength(1);
      expect(fired[1]).toBeNull();
      expect(await runsOf(store(), moved.id)).toEqual([]);
      expect(await store().listOccurrences({ jobId: moved.id, limit: 10 })).toEqual([]);
      expect((await store().findJob(moved.id))?.nextRunAt).toBe(DUE + MINUTE);
      expect((await store().findJob(fresh.id))?.nextRunAt).toBe(DUE + MINUTE);
    });

    it('Given a run already stored for one fire instant, when the batch is recorded, then it is refused and nothing of the batch is written', async () => {
      const free = await createJob(store(), 'free', { nextRunAt: DUE });
      const taken = await createJob(store(), 'taken', { nextRunAt: DUE });
      await store().insertRun(newRun(taken.id, { scheduledFor: DUE, trigger: 'manual' }));

      await expect(
        store().recordFires([{ ...fireOf(free.id), occurrences: [dstSkipped(free.id)] }, fireOf(taken.id)]),
      ).rejects.toThrow();

      expect(await runsOf(store(), free.id)).toEqual([]);
      expect(await store().listOccurrences({ jobId: free.id, limit: 10 })).toEqual([]);
      expect((await store().findJob(free.id))?.nextRunAt).toBe(DUE);
      expect((await store().findJob(taken.id))?.nextRunAt).toBe(DUE);
    });

    it('Given jobs under forbid, replace and queue with a run running on another node, when their fires are recorded together, then each rule decides on its own job runs only', async () => {
      const forbid = await createJob(store(), 'forbid', { nextRunAt: DUE });
      const replace = await createJob(store(), 'replace', { nextRunAt: DUE });
      const queue = await createJob(store(), 'queue', { nextRunAt: DUE });
      const idle = await createJob(store(), 'idle', { nextRunAt: DUE });
      const running = new Map<string, string>();
      for (const job of [forbid, replace, queue]) {
        const run = await store().insertRun(
          newRun(job.id, { scheduledFor: T0, node: 'node-b', state: 'running' }),
        );
        running.set(job.id, run.id);
      }

      const [forbidden, replacing, queued, free] = await store().recordFires([
        fireOf(forbid.id, { concurrency: 'forbid' }),
        fireOf(replace.id, { concurrency: 'replace' }),
        fireOf(queue.id, { concurrency: 'queue' }),
        fireOf(idle.id, { concurrency: 'forbid' }),
      ]);

      expect(forbidden?.runs).toEqual([]);
      expect(forbidden?.occurrences).toEqual([
        expect.objectContaining({
          outcome: 'skipped-overlap',
          reason: `run ${running.get(forbid.id)} on node node-b was still running (--concurrency forbid)`,
        }),
      ]);
      expect(await store().listOccurrences({ jobId: forbid.id, limit: 10 })).toEqual([
        expect.objectContaining({ scheduledFor: DUE, outcome: 'skipped-overlap' }),
      ]);
      expect(replacing?.runs).toEqual([expect.objectContaining({ state: 'running' })]);
      expect(replacing?.replaced).toEqual([{ id: running.get(replace.id), node: 'node-b' }]);
      expect(queued?.runs).toEqual([expect.objectContaining({ state: 'scheduled' })]);
      expect(free?.runs).toEqual([expect.objectContaining({ state: 'running' })]);
      expect(free?.replaced).toEqual([]);
    });

    it('Given an every-host job running on another host, when this host fires it in a batch under forbid, then this host runs it', async () => {
      const job = await createJob(store(), 'per-host', { nextRunAt: DUE });
      const other = await createJob(store(), 'other', { nextRunAt: DUE });
      await store().insertRun(
        newRun(job.id, { scheduledFor: T0, node: 'node-b', state: 'running', host: 'node-b' }),
      );

      const [fired] = await store().recordFires([
        fireOf(job.id, { concurrency: 'forbid', host: 'node-a' }),
        fireOf(other.id),
      ]);

      expect(fired?.runs).toEqual([expect.objectContaining({ host: 'node-a', state: 'running' })]);
    });

    it('Given no fires, when the empty batch is recorded, then nothing comes back', async () => {
      expect(await store().recordFires([])).toEqual([]);
    });
  });
}
