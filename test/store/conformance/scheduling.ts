import { describe, expect, it } from 'vitest';
import { createJob, newRun, stamp, T0 } from './fixtures.js';
import type { CurrentStore } from './fixtures.js';

const MINUTE = 60_000;

export function describeSchedulingCases(store: CurrentStore): void {
  describe('dueJobs', () => {
    it('Given jobs due at different times, when asked what is due, then active live jobs due by then come earliest first up to the limit', async () => {
      const late = await createJob(store(), 'late', { nextRunAt: T0 + 3 * MINUTE });
      const early = await createJob(store(), 'early', { nextRunAt: T0 + MINUTE });
      const middle = await createJob(store(), 'middle', { nextRunAt: T0 + 2 * MINUTE });
      await createJob(store(), 'future', { nextRunAt: T0 + 60 * MINUTE });

      const due = await store().dueJobs(T0 + 3 * MINUTE, 10);
      const firstTwo = await store().dueJobs(T0 + 3 * MINUTE, 2);

      expect(due.map((job) => job.id)).toEqual([early.id, middle.id, late.id]);
      expect(firstTwo.map((job) => job.id)).toEqual([early.id, middle.id]);
    });

    it('Given paused, cancelled and unscheduled jobs that would be due, when asked what is due, then none of them come back', async () => {
      const paused = await createJob(store(), 'paused', { nextRunAt: T0 });
      const cancelled = await createJob(store(), 'cancelled', { nextRunAt: T0 });
      await createJob(store(), 'done', { nextRunAt: null });
      await store().updateJob(paused.id, 1, { state: 'paused' }, stamp('job.pause'));
      await store().cancelJob(cancelled.id, 1, T0, stamp('job.cancel'));

      expect(await store().dueJobs(T0 + 60 * MINUTE, 10)).toEqual([]);
    });
  });

  describe('recordFire', () => {
    it('Given a due job, when it fires, then a scheduled run is stored and nextRunAt advances', async () => {
      const job = await createJob(store(), 'nightly', { nextRunAt: T0 + MINUTE });
      const run = newRun(job.id, { scheduledFor: T0 + MINUTE });

      const fired = await store().recordFire({
        jobId: job.id,
        runs: [run],
        occurrences: [],
        expectedNextRunAt: T0 + MINUTE,
        nextRunAt: T0 + 2 * MINUTE,
      });

      expect(fired?.runs).toHaveLength(1);
      expect(fired?.runs[0]).toMatchObject({
        id: run.id,
        jobId: job.id,
        jobName: 'nightly',
        state: 'scheduled',
        attempt: 1,
        fence: 1,
      });
      expect(await store().findRun(run.id)).toEqual(fired?.runs[0]);
      expect((await store().findJob(job.id))?.nextRunAt).toBe(T0 + 2 * MINUTE);
    });

    it('Given a job already fired for that instant, when it fires again with the stale due time, then null comes back and no run is added', async () => {
      const job = await createJob(store(), 'nightly', { nextRunAt: T0 + MINUTE });
      const fire = { expectedNextRunAt: T0 + MINUTE, nextRunAt: T0 + 2 * MINUTE };
      await store().recordFire({
        ...fire,
        jobId: job.id,
        occurrences: [],
        runs: [newRun(job.id, { scheduledFor: T0 + MINUTE })],
      });

      const second = await store().recordFire({
        ...fire,
        jobId: job.id,
        occurrences: [],
        runs: [newRun(job.id, { scheduledFor: T0 + MINUTE })],
      });

      expect(second).toBeNull();
      expect((await store().listRuns({ limit: 10 })).items).toHaveLength(1);
      expect((await store().findJob(job.id))?.nextRunAt).toBe(T0 + 2 * MINUTE);
    });

    it('Given a run already stored for that instant and attempt, when the job fires, then null comes back and nextRunAt is not advanced', async () => {
      const job = await createJob(store(), 'nightly', { nextRunAt: T0 + MINUTE });
      await store().insertRun(newRun(job.id, { scheduledFor: T0 + MINUTE, trigger: 'manual' }));

      const fired = await store().recordFire({
        jobId: job.id,
        occurrences: [],
        runs: [newRun(job.id, { scheduledFor: T0 + MINUTE })],
        expectedNextRunAt: T0 + MINUTE,
        nextRunAt: T0 + 2 * MINUTE,
      });

      expect(fired).toBeNull();
      expect((await store().findJob(job.id))?.nextRunAt).toBe(T0 + MINUTE);
      expect((await store().listRuns({ limit: 10 })).items).toHaveLength(1);
    });

    it('Given caught-up instants and ledger records, when the job fires, then all are written together, and none when the compare-and-set fails', async () => {
      const job = await createJob(store(), 'catchup', { nextRunAt: T0 + MINUTE });
      const record = {
        jobId: job.id,
        scheduledFor: T0 + MINUTE,
        wall: null,
        outcome: 'missed-while-down' as const,
        reason: 'it fell due while the scheduler was not running',
        node: 'n1',
        decidedAt: T0 + 5 * MINUTE,
      };
      const fire = {
        jobId: job.id,
        occurrences: [record],
        expectedNextRunAt: T0 + MINUTE,
        nextRunAt: T0 + 6 * MINUTE,
      };
      const runs = [
        newRun(job.id, { scheduledFor: T0 + 2 * MINUTE, trigger: 'catchup' }),
        newRun(job.id, { scheduledFor: T0 + 3 * MINUTE, trigger: 'catchup' }),
      ];

      const fired = await store().recordFire({ ...fire, runs });
      const again = await store().recordFire({
        ...fire,
        occurrences: [{ ...record, scheduledFor: T0 + 4 * MINUTE }],
        runs: [newRun(job.id, { scheduledFor: T0 + 5 * MINUTE })],
      });

      expect(fired?.runs.map((run) => [run.scheduledFor, run.trigger])).toEqual([
        [T0 + 2 * MINUTE, 'catchup'],
        [T0 + 3 * MINUTE, 'catchup'],
      ]);
      expect(again).toBeNull();
      const ledger = await store().listOccurrences({ jobId: job.id, limit: 10 });
      expect(ledger.map((entry) => [entry.scheduledFor, entry.outcome])).toEqual([
        [T0 + MINUTE, 'missed-while-down'],
      ]);
      expect((await store().listRuns({ limit: 10, jobId: job.id })).items).toHaveLength(2);
    });

    it('Given an every-host job, when two nodes store their run of one instant, then both are kept, and a second run of one node is refused', async () => {
      const job = await createJob(store(), 'per-host', { nextRunAt: null });
      const a = await store().insertRun(newRun(job.id, { scheduledFor: T0 + MINUTE, node: 'a', host: 'a' }));
      const b = await store().insertRun(newRun(job.id, { scheduledFor: T0 + MINUTE, node: 'b', host: 'b' }));

      expect([a.host, b.host]).toEqual(['a', 'b']);
      expect((await store().findRun(b.id))?.host).toBe('b');
      await expect(
        store().insertRun(newRun(job.id, { scheduledFor: T0 + MINUTE, node: 'a', host: 'a' })),
      ).rejects.toMatchObject({ code: 'INVALID_STATE' });
    });

    it('Given a paused job, when it fires, then null comes back', async () => {
      const job = await createJob(store(), 'nightly', { nextRunAt: T0 + MINUTE });
      await store().updateJob(job.id, 1, { state: 'paused' }, stamp('job.pause'));

      const fired = await store().recordFire({
        jobId: job.id,
        occurrences: [],
        runs: [newRun(job.id)],
        expectedNextRunAt: T0 + MINUTE,
        nextRunAt: T0 + 2 * MINUTE,
      });

      expect(fired).toBeNull();
    });

    it('Given a one-shot job, when its last fire clears nextRunAt, then it is no longer due', async () => {
      const job = await createJob(store(), 'once', { nextRunAt: T0 + MINUTE });

      await store().recordFire({
        jobId: job.id,
        occurrences: [],
        runs: [newRun(job.id, { scheduledFor: T0 + MINUTE })],
        expectedNextRunAt: T0 + MINUTE,
        nextRunAt: null,
      });

      expect(await store().dueJobs(T0 + 60 * MINUTE, 10)).toEqual([]);
    });
  });

  describe('insertRun', () => {
    it('Given a job, when a manual run is inserted, then it is scheduled and the job keeps its nextRunAt', async () => {
      const job = await createJob(store(), 'nightly', { nextRunAt: T0 + MINUTE });

      const run = await store().insertRun(newRun(job.id, { scheduledFor: T0 + 5, trigger: 'manual' }));

      expect(run).toMatchObject({
        trigger: 'manual',
        state: 'scheduled',
        jobName: 'nightly',
        stdoutTail: '',
        stderrTail: '',
      });
      expect((await store().findJob(job.id))?.nextRunAt).toBe(T0 + MINUTE);
    });

    it('Given a run for that instant and attempt, when the same key is inserted again, then it is refused', async () => {
      const job = await createJob(store(), 'nightly');
      await store().insertRun(newRun(job.id, { scheduledFor: T0 + 5 }));

      await expect(store().insertRun(newRun(job.id, { scheduledFor: T0 + 5 }))).rejects.toMatchObject({
        code: 'INVALID_STATE',
      });
    });

    it('Given no such job, when a run is inserted for it, then JOB_NOT_FOUND is thrown', async () => {
      await expect(store().insertRun(newRun('missing'))).rejects.toMatchObject({ code: 'JOB_NOT_FOUND' });
    });
  });
}
