import { describe, expect, it } from 'vitest';
import type { NewDelivery } from '../../../src/core/notify/delivery.js';
import { newId } from '../../../src/store/ids.js';
import { createJob, newRun, outcome, T0 } from './fixtures.js';
import type { CurrentStore } from './fixtures.js';

function delivery(jobId: string, overrides: Partial<NewDelivery> = {}): NewDelivery {
  return {
    id: newId(),
    jobId,
    runId: null,
    kind: 'dead',
    target: 'https://hooks.example/a',
    dedupKey: `dead:${jobId}:a`,
    dueAt: T0,
    createdAt: T0,
    detail: '',
    ...overrides,
  };
}

export function describeNotificationCases(store: CurrentStore): void {
  describe('deliveries', () => {
    it('Given a failed run, when it is finished with its deliveries, then they are pending in the same write and a repeated key is dropped', async () => {
      const job = await createJob(store(), 'nightly');
      const run = await store().insertRun(newRun(job.id, { state: 'running' }));
      const first = delivery(job.id, { runId: run.id, dedupKey: `dead:${run.id}` });
      const again = delivery(job.id, { runId: run.id, dedupKey: `dead:${run.id}` });

      await store().finishRun(run.id, outcome({ state: 'failed', exitCode: 1 }), undefined, [first, again]);

      const listed = await store().listDeliveries({ limit: 10 });
      expect(listed.map((row) => [row.id, row.jobName, row.runId, row.state, row.attempts])).toEqual([
        [first.id, 'nightly', run.id, 'pending', 0],
      ]);
    });

    it('Given pending deliveries, when the due ones are asked for, then only those due come, earliest first', async () => {
      const job = await createJob(store(), 'nightly');
      const later = delivery(job.id, { dedupKey: 'b', dueAt: T0 + 2_000 });
      const sooner = delivery(job.id, { dedupKey: 'a', dueAt: T0 + 1_000 });
      const future = delivery(job.id, { dedupKey: 'c', dueAt: T0 + 60_000 });

      expect(await store().enqueueDeliveries([later, sooner, future, { ...sooner, id: newId() }])).toBe(3);

      const due = await store().dueDeliveries(T0 + 5_000, 10);
      expect(due.map((row) => row.id)).toEqual([sooner.id, later.id]);
    });

    it('Given a pending delivery, when an attempt is recorded, then it leaves the due list and a second record is refused', async () => {
      const job = await createJob(store(), 'nightly');
      const row = delivery(job.id);
      await store().enqueueDeliveries([row]);
      const attempt = {
        state: 'delivered' as const,
        attempts: 1,
        dueAt: T0,
        finishedAt: T0 + 10,
        answer: 'HTTP 200',
        lastError: null,
      };

      expect(await store().recordDeliveryAttempt(row.id, attempt)).toBe(true);
      expect(await store().recordDeliveryAttempt(row.id, attempt)).toBe(false);

      expect(await store().dueDeliveries(T0 + 60_000, 10)).toEqual([]);
      const [stored] = await store().listDeliveries({ limit: 10, states: ['delivered'] });
      expect(stored).toMatchObject({
        state: 'delivered',
        attempts: 1,
        answer: 'HTTP 200',
        finishedAt: T0 + 10,
      });
    });

    it('Given a pending delivery read by two daemons, when both claim it, then only the first gets it and it is due again after the lease', async () => {
      const job = await createJob(store(), 'nightly');
      const row = delivery(job.id, { dueAt: T0 });
      await store().enqueueDeliveries([row]);

      expect(await store().claimDelivery(row.id, T0, T0 + 60_000)).toBe(true);
      expect(await store().claimDelivery(row.id, T0, T0 + 60_000)).toBe(false);

      expect(await store().dueDeliveries(T0 + 59_999, 10)).toEqual([]);
      expect((await store().dueDeliveries(T0 + 60_000, 10)).map((due) => due.id)).toEqual([row.id]);
    });

    it('Given settled and pending deliveries, when those settled before a time are pruned in batches, then only they go, and pending ones stay however old', async () => {
      const job = await createJob(store(), 'nightly');
      const rows = ['a', 'b', 'c', 'd', 'e'].map((key) => delivery(job.id, { dedupKey: key }));
      await store().enqueueDeliveries(rows);
      const settle = (index: number, finishedAt: number) =>
        store().recordDeliveryAttempt(rows[index]!.id, {
          state: index === 2 ? 'failed' : 'delivered',
          attempts: 1,
          dueAt: T0,
          finishedAt,
          answer: null,
          lastError: null,
        });
      await settle(0, T0 + 100);
      await settle(1, T0 + 200);
      await settle(2, T0 + 300);
      await settle(3, T0 + 9_000);

      expect(await store().pruneDeliveries(T0 + 1_000, 2)).toBe(2);
      expect(await store().pruneDeliveries(T0 + 1_000, 2)).toBe(1);
      expect(await store().pruneDeliveries(T0 + 1_000, 2)).toBe(0);

      const left = await store().listDeliveries({ limit: 10 });
      expect(left.map((row) => row.id).sort()).toEqual([rows[3]!.id, rows[4]!.id].sort());
    });

    it('Given deliveries of two targets, when one target’s are counted since a time, then summaries and other states are left out', async () => {
      const job = await createJob(store(), 'nightly');
      await store().enqueueDeliveries([
        delivery(job.id, { dedupKey: '1', createdAt: T0 }),
        delivery(job.id, { dedupKey: '2', createdAt: T0 + 1_000 }),
        delivery(job.id, { dedupKey: '3', createdAt: T0 + 1_000, kind: 'summary' }),
        delivery(job.id, { dedupKey: '4', createdAt: T0 + 1_000, target: 'mailto:a@b.example' }),
      ]);

      expect(await store().countDeliveries(job.id, 'https://hooks.example/a', T0 + 500, ['pending'])).toBe(1);
      expect(await store().countDeliveries(job.id, 'https://hooks.example/a', T0, ['pending'])).toBe(2);
      expect(await store().countDeliveries(job.id, 'https://hooks.example/a', T0, ['delivered'])).toBe(0);
    });
  });

  describe('overdue marks', () => {
    it('Given a job, when it is marked overdue twice, then the mark, its ledger note and its deliveries are written once', async () => {
      const job = await createJob(store(), 'nightly');
      const mark = (key: string) => ({
        jobId: job.id,
        since: T0 + 5_000,
        note: {
          jobId: job.id,
          scheduledFor: T0 + 5_000,
          outcome: 'overdue' as const,
          reason: 'no run succeeded for 5s',
          node: 'node-a',
          decidedAt: T0 + 5_001,
        },
        deliveries: [delivery(job.id, { kind: 'overdue', dedupKey: key })],
      });

      expect(await store().markOverdue(mark('overdue:1'))).toBe(true);
      expect(await store().markOverdue(mark('overdue:2'))).toBe(false);

      expect(await store().listOverdue()).toEqual([{ jobId: job.id, since: T0 + 5_000 }]);
      expect((await store().listDeliveries({ limit: 10 })).map((row) => row.dedupKey)).toEqual(['overdue:1']);
      const notes = await store().listOccurrences({ jobId: job.id, limit: 10 });
      expect(notes.map((note) => note.outcome)).toEqual(['overdue']);
    });

    it('Given an overdue job, when it is cleared, then its since comes back with the deliveries stored, and a second clear finds nothing', async () => {
      const job = await createJob(store(), 'nightly');
      await store().markOverdue({
        jobId: job.id,
        since: T0,
        note: { jobId: job.id, scheduledFor: T0, outcome: 'overdue', reason: 'r', node: 'n', decidedAt: T0 },
        deliveries: [],
      });

      expect(
        await store().clearOverdue(job.id, [delivery(job.id, { kind: 'recovered', dedupKey: 'r1' })]),
      ).toBe(T0);
      expect(
        await store().clearOverdue(job.id, [delivery(job.id, { kind: 'recovered', dedupKey: 'r2' })]),
      ).toBe(null);

      expect(await store().listOverdue()).toEqual([]);
      expect((await store().listDeliveries({ limit: 10 })).map((row) => row.dedupKey)).toEqual(['r1']);
    });
  });

  describe('latestSuccess', () => {
    it('Given failed and succeeded runs, when the latest success is asked for, then it is the succeeded run that finished last', async () => {
      const job = await createJob(store(), 'nightly');
      expect(await store().latestSuccess(job.id)).toBeNull();
      const early = await store().insertRun(newRun(job.id, { state: 'running', scheduledFor: T0 }));
      const late = await store().insertRun(newRun(job.id, { state: 'running', scheduledFor: T0 + 1 }));
      const failed = await store().insertRun(newRun(job.id, { state: 'running', scheduledFor: T0 + 2 }));
      await store().finishRun(late.id, outcome({ finishedAt: T0 + 9_000 }));
      await store().finishRun(early.id, outcome({ finishedAt: T0 + 3_000 }));
      await store().finishRun(failed.id, outcome({ state: 'failed', finishedAt: T0 + 10_000 }));

      expect(await store().latestSuccess(job.id)).toEqual({ runId: late.id, finishedAt: T0 + 9_000 });
    });
  });
}
