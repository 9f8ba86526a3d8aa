import { describe, expect, it } from 'vitest';
import type { NewOccurrence } from '../../../src/store/store.js';
import { RUN_TRIGGERS } from '../../../src/core/run.js';
import { createJob, definition, newRun, outcome, stamp, T0 } from './fixtures.js';
import type { CurrentStore } from './fixtures.js';

const MINUTE = 60_000;

function occurrence(jobId: string, overrides: Partial<NewOccurrence> = {}): NewOccurrence {
  return {
    jobId,
    scheduledFor: T0 + MINUTE,
    outcome: 'skipped-overlap',
    reason: 'the previous run was still running',
    node: 'node-a',
    decidedAt: T0 + MINUTE + 5,
    ...overrides,
  };
}

export function describeLedgerCases(store: CurrentStore): void {
  describe('recordOccurrences and listOccurrences', () => {
    it('Given an instant already decided, when it is recorded again (in a later batch and twice in one batch), then the first decision stands', async () => {
      const job = await createJob(store(), 'nightly');
      await store().recordOccurrences([
        occurrence(job.id, { outcome: 'missed-while-down', reason: 'first' }),
      ]);

      await store().recordOccurrences([
        occurrence(job.id, { outcome: 'deduplicated', reason: 'second', node: 'node-b' }),
        occurrence(job.id, { scheduledFor: T0 + 2 * MINUTE, outcome: 'paused', reason: 'one' }),
        occurrence(job.id, { scheduledFor: T0 + 2 * MINUTE, outcome: 'ran', reason: 'two' }),
      ]);

      const entries = await store().listOccurrences({ jobId: job.id, order: 'asc', limit: 10 });
      expect(entries.map((entry) => [entry.scheduledFor, entry.outcome, entry.reason, entry.node])).toEqual([
        [T0 + MINUTE, 'missed-while-down', 'first', 'node-a'],
        [T0 + 2 * MINUTE, 'paused', 'one', 'node-a'],
      ]);
    });

    it('Given an empty batch, when it is recorded, then nothing is written', async () => {
      const job = await createJob(store(), 'nightly');

      await store().recordOccurrences([]);

      expect(await store().listOccurrences({ jobId: job.id, limit: 10 })).toEqual([]);
    });

    it('Given a recorded instant, when it is listed, then it carries the job name, no runs and no final state', async () => {
      const job = await createJob(store(), 'nightly');
      await store().recordOccurrences([occurrence(job.id)]);

      expect(await store().listOccurrences({ jobId: job.id, limit: 10 })).toEqual([
        {
          jobId: job.id,
          jobName: 'nightly',
          scheduledFor: T0 + MINUTE,
          outcome: 'skipped-overlap',
          reason: 'the previous run was still running',
          node: 'node-a',
          decidedAt: T0 + MINUTE + 5,
          runIds: [],
          finalState: null,
          wall: null,
        },
      ]);
    });

    it('Given a job renamed after its instant was recorded, when the ledger is listed, then it shows the current name', async () => {
      const job = await createJob(store(), 'nightly');
      await store().recordOccurrences([occurrence(job.id)]);
      await store().updateJob(job.id, 1, { definition: definition('nightly-v2') }, stamp('job.update'));

      const [entry] = await store().listOccurrences({ jobId: job.id, limit: 10 });

      expect(entry?.jobName).toBe('nightly-v2');
    });

    it('Given one instant recorded without a wall time and for a skipped wall time, when listed, then both are kept, the plain one with wall null first in ascending order', async () => {
      const job = await createJob(store(), 'nightly');
      await store().recordOccurrences([
        occurrence(job.id, {
          outcome: 'dst-skipped',
          wall: '2030-03-10T02:30:00',
          reason: 'the clocks skipped it',
        }),
        occurrence(job.id, { outcome: 'ran' }),
      ]);
      // No wall time and an explicit null are the same key.
      await store().recordOccurrences([occurrence(job.id, { outcome: 'paused', wall: null })]);

      const ascending = await store().listOccurrences({ jobId: job.id, order: 'asc', limit: 10 });
      const descending = await store().listOccurrences({ jobId: job.id, order: 'desc', limit: 10 });

      expect(ascending.map((entry) => [entry.wall, entry.outcome])).toEqual([
        [null, 'ran'],
        ['2030-03-10T02:30:00', 'dst-skipped'],
      ]);
      expect(descending.map((entry) => entry.wall)).toEqual(['2030-03-10T02:30:00', null]);
    });

    it('Given five recorded instants of a job and one of another, when a range is listed, then only that job’s instants in the inclusive range come back, newest first by default, up to the limit', async () => {
      const job = await createJob(store(), 'nightly');
      const other = await createJob(store(), 'other');
      await store().recordOccurrences([
        ...[3, 1, 5, 2, 4].map((minute) => occurrence(job.id, { scheduledFor: T0 + minute * MINUTE })),
        occurrence(other.id, { scheduledFor: T0 + 3 * MINUTE }),
      ]);
      const range = { jobId: job.id, from: T0 + 2 * MINUTE, to: T0 + 4 * MINUTE };
      const minutes = (entries: Array<{ scheduledFor: number }>) =>
        entries.map((entry) => (entry.scheduledFor - T0) / MINUTE);

      expect(minutes(await store().listOccurrences({ ...range, limit: 10 }))).toEqual([4, 3, 2]);
      expect(minutes(await store().listOccurrences({ ...range, order: 'asc', limit: 10 }))).toEqual([
        2, 3, 4,
      ]);
      expect(minutes(await store().listOccurrences({ ...range, limit: 2 }))).toEqual([4, 3]);
      expect(minutes(await store().listOccurrences({ ...range, order: 'asc', limit: 2 }))).toEqual([2, 3]);
      expect(
        minutes(await store().listOccurrences({ jobId: job.id, from: T0 + 4 * MINUTE, limit: 10 })),
      ).toEqual([5, 4]);
      expect(
        minutes(await store().listOccurrences({ jobId: job.id, to: T0 + 2 * MINUTE, limit: 10 })),
      ).toEqual([2, 1]);
    });
  });

  describe('every-host entries (one per node)', () => {
    it('Given two nodes that skip one instant of an every-host job, when both are recorded, then both are kept, each with its host', async () => {
      const job = await createJob(store(), 'everywhere');
      await store().recordOccurrences([
        occurrence(job.id, { node: 'node-a', host: 'node-a', reason: 'on a' }),
      ]);
      await store().recordOccurrences([
        occurrence(job.id, { node: 'node-b', host: 'node-b', reason: 'on b' }),
      ]);

      const ascending = await store().listOccurrences({ jobId: job.id, order: 'asc', limit: 10 });
      const descending = await store().listOccurrences({ jobId: job.id, order: 'desc', limit: 10 });

      expect(ascending.map((entry) => [entry.scheduledFor, entry.host, entry.node, entry.reason])).toEqual([
        [T0 + MINUTE, 'node-a', 'node-a', 'on a'],
        [T0 + MINUTE, 'node-b', 'node-b', 'on b'],
      ]);
      expect(descending.map((entry) => entry.host)).toEqual(['node-b', 'node-a']);
    });

    it('Given a node’s entry of an every-host instant, when the same node records the instant again (later and twice in one batch), then its first entry stands', async () => {
      const job = await createJob(store(), 'everywhere');
      await store().recordOccurrences([occurrence(job.id, { host: 'node-a', reason: 'first' })]);

      await store().recordOccurrences([
        occurrence(job.id, { host: 'node-a', reason: 'second' }),
        occurrence(job.id, { host: 'node-b', node: 'node-b', reason: 'b first' }),
        occurrence(job.id, { host: 'node-b', node: 'node-b', reason: 'b second' }),
      ]);

      const entries = await store().listOccurrences({ jobId: job.id, order: 'asc', limit: 10 });
      expect(entries.map((entry) => [entry.host, entry.reason])).toEqual([
        ['node-a', 'first'],
        ['node-b', 'b first'],
      ]);
    });

    it('Given an instant decided once for the cluster, when another node records it, then the first entry stands and carries no host', async () => {
      const job = await createJob(store(), 'nightly');
      await store().recordOccurrences([occurrence(job.id, { reason: 'first' })]);

      // No host and an explicit '' are the same key: once for the cluster.
      await store().recordOccurrences([
        occurrence(job.id, { node: 'node-b', reason: 'second' }),
        occurrence(job.id, { node: 'node-c', host: '', reason: 'third' }),
      ]);

      const entries = await store().listOccurrences({ jobId: job.id, limit: 10 });
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ node: 'node-a', reason: 'first' });
      expect(entries[0]).not.toHaveProperty('host');
    });

    it('Given two nodes’ entries of one old instant, when records before it are pruned, then both go', async () => {
      const job = await createJob(store(), 'everywhere');
      await store().recordOccurrences(
        ['node-a', 'node-b', 'node-c'].map((host) =>
          occurrence(job.id, { node: host, host, decidedAt: host === 'node-c' ? T0 + 60 * MINUTE : T0 }),
        ),
      );

      expect(await store().pruneRunsFinishedBefore(['succeeded'], T0 + MINUTE, 10)).toBe(2);

      const left = await store().listOccurrences({ jobId: job.id, limit: 10 });
      expect(left.map((entry) => entry.host)).toEqual(['node-c']);
    });
  });

  describe('listRunsByInstant', () => {
    it('Given runs of three instants, two with retries, when listed by instant, then instants come in the asked order and attempts ascending within each', async () => {
      const job = await createJob(store(), 'nightly');
      const other = await createJob(store(), 'other');
      for (const [minute, attempt] of [
        [3, 2],
        [1, 1],
        [3, 1],
        [2, 1],
        [1, 2],
      ] as const)
        await store().insertRun(newRun(job.id, { scheduledFor: T0 + minute * MINUTE, attempt }));
      await store().insertRun(newRun(other.id, { scheduledFor: T0 + 2 * MINUTE }));
      const keys = (runs: Array<{ scheduledFor: number; attempt: number }>) =>
        runs.map((run) => [(run.scheduledFor - T0) / MINUTE, run.attempt]);

      const descending = await store().listRunsByInstant({ jobId: job.id, limit: 10 });
      const ascending = await store().listRunsByInstant({ jobId: job.id, order: 'asc', limit: 10 });

      expect(keys(descending)).toEqual([
        [3, 1],
        [3, 2],
        [2, 1],
        [1, 1],
        [1, 2],
      ]);
      expect(keys(ascending)).toEqual([
        [1, 1],
        [1, 2],
        [2, 1],
        [3, 1],
        [3, 2],
      ]);
      expect(descending[0]).toMatchObject({ jobId: job.id, jobName: 'nightly', state: 'scheduled' });
    });

    it('Given runs of four instants, when a range is listed with a limit, then the limit counts runs within the inclusive range', async () => {
      const job = await createJob(store(), 'nightly');
      for (const minute of [1, 2, 3, 4])
        await store().insertRun(newRun(job.id, { scheduledFor: T0 + minute * MINUTE }));
      await store().insertRun(newRun(job.id, { scheduledFor: T0 + 3 * MINUTE, attempt: 2 }));
      const range = { jobId: job.id, from: T0 + 2 * MINUTE, to: T0 + 3 * MINUTE };

      const all = await store().listRunsByInstant({ ...range, order: 'asc', limit: 10 });
      const two = await store().listRunsByInstant({ ...range, limit: 2 });

      expect(all.map((run) => [(run.scheduledFor - T0) / MINUTE, run.attempt])).toEqual([
        [2, 1],
        [3, 1],
        [3, 2],
      ]);
      expect(two.map((run) => [(run.scheduledFor - T0) / MINUTE, run.attempt])).toEqual([
        [3, 1],
        [3, 2],
      ]);
    });
  });

  describe('run triggers', () => {
    it('Given a run of every trigger, when each is read back, then its trigger is kept', async () => {
      const job = await createJob(store(), 'nightly');

      for (const [index, trigger] of RUN_TRIGGERS.entries()) {
        const run = await store().insertRun(newRun(job.id, { scheduledFor: T0 + index, trigger }));
        expect((await store().findRun(run.id))?.trigger).toBe(trigger);
      }
    });
  });

  describe('ledger retention', () => {
    it('Given ledger records decided before and after a time, when runs finished before it are pruned, then the older records go too, within the limit', async () => {
      const job = await createJob(store(), 'nightly');
      const run = await store().insertRun(newRun(job.id, { state: 'running' }));
      await store().finishRun(run.id, outcome({ finishedAt: T0 }));
      await store().recordOccurrences(
        [1, 2, 3, 4].map((minute) =>
          occurrence(job.id, {
            scheduledFor: T0 + minute * MINUTE,
            decidedAt: minute <= 3 ? T0 : T0 + 60 * MINUTE,
          }),
        ),
      );

      expect(await store().pruneRunsFinishedBefore(['succeeded'], T0 + MINUTE, 2)).toBe(2);
      expect(await store().pruneRunsFinishedBefore(['succeeded'], T0 + MINUTE, 2)).toBe(2);
      expect(await store().pruneRunsFinishedBefore(['succeeded'], T0 + MINUTE, 2)).toBe(0);

      expect(await store().findRun(run.id)).toBeNull();
      const left = await store().listOccurrences({ jobId: job.id, limit: 10 });
      expect(left.map((entry) => entry.scheduledFor)).toEqual([T0 + 4 * MINUTE]);
    });

    it('Given a cancelled job with ledger records, when cancelled jobs are purged, then the job and its records go and another job’s records stay', async () => {
      const gone = await createJob(store(), 'gone');
      const kept = await createJob(store(), 'kept');
      await store().recordOccurrences([occurrence(gone.id), occurrence(kept.id)]);
      await store().cancelJob(gone.id, 1, T0 + 1, stamp('job.cancel', T0 + 1));

      expect(await store().purgeCancelledJobs(T0 + MINUTE, 100)).toBe(1);

      expect(await store().findJob(gone.id)).toBeNull();
      expect(await store().listOccurrences({ jobId: gone.id, limit: 10 })).toEqual([]);
      expect(await store().listOccurrences({ jobId: kept.id, limit: 10 })).toHaveLength(1);
    });
  });
}
