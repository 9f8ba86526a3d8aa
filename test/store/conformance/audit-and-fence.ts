import { describe, expect, it } from 'vitest';
import { createJob, stamp, T0 } from './fixtures.js';
import type { CurrentStore } from './fixtures.js';

export function describeAuditAndFenceCases(store: CurrentStore): void {
  describe('listAudit', () => {
    it('Given a job created, updated and cancelled, when its audit is listed, then three entries come newest first with before and after', async () => {
      const created = await createJob(store(), 'nightly');
      const updated = await store().updateJob(
        created.id,
        1,
        { nextRunAt: T0 + 5 },
        stamp('job.update', T0 + 1),
      );
      const cancelled = await store().cancelJob(created.id, 2, T0 + 2, stamp('job.cancel', T0 + 2));

      const page = await store().listAudit({ limit: 10, jobId: created.id });

      expect(page.items).toMatchObject([
        {
          action: 'job.cancel',
          at: T0 + 2,
          actor: 'alice',
          jobId: created.id,
          before: updated,
          after: cancelled,
        },
        { action: 'job.update', at: T0 + 1, before: created, after: updated },
        { action: 'job.create', at: T0, before: null, after: created },
      ]);
    });

    it('Given a refused update, when the audit is listed, then only the creation is there', async () => {
      const job = await createJob(store(), 'nightly');
      await store()
        .updateJob(job.id, 99, { nextRunAt: null }, stamp('job.update'))
        .catch(() => undefined);

      const page = await store().listAudit({ limit: 10 });

      expect(page.items.map((entry) => entry.action)).toEqual(['job.create']);
    });

    it('Given audit entries of two jobs, when listed for one, then only its entries come back', async () => {
      const nightly = await createJob(store(), 'nightly');
      await createJob(store(), 'weekly');

      const page = await store().listAudit({ limit: 10, jobId: nightly.id });

      expect(page.items.map((entry) => entry.jobId)).toEqual([nightly.id]);
    });

    it('Given five audit entries, when listed two at a time, then three pages hold each entry once', async () => {
      for (const name of ['a', 'b', 'c', 'd', 'e']) await createJob(store(), name);

      const first = await store().listAudit({ limit: 2 });
      const second = await store().listAudit({ limit: 2, cursor: first.nextCursor ?? undefined });
      const third = await store().listAudit({ limit: 2, cursor: second.nextCursor ?? undefined });

      const names = [...first.items, ...second.items, ...third.items].map(
        (entry) => (entry.after as { name: string }).name,
      );
      expect(names).toEqual(['e', 'd', 'c', 'b', 'a']);
      expect(third.nextCursor).toBeNull();
    });
  });

  describe('nextFenceEpoch', () => {
    it('Given a fresh store, when epochs are taken, then they start at 1 and grow by one', async () => {
      const epochs = [
        await store().nextFenceEpoch(),
        await store().nextFenceEpoch(),
        await store().nextFenceEpoch(),
      ];

      expect(epochs).toEqual([1, 2, 3]);
    });
  });

  describe('secret key id', () => {
    it('Given no key recorded, when two daemons record theirs, then the first is the store’s and the second is refused', async () => {
      expect(await store().secretKeyId()).toBeNull();

      const first = await store().recordSecretKeyId('key-a', null);
      const second = await store().recordSecretKeyId('key-b', null);

      expect([first, second]).toEqual([true, false]);
      expect(await store().secretKeyId()).toBe('key-a');
    });

    it('Given a key recorded, when it is replaced from the id read, then it changes; from another id, it does not', async () => {
      await store().recordSecretKeyId('key-a', null);

      const stale = await store().recordSecretKeyId('key-c', 'key-x');
      const rotated = await store().recordSecretKeyId('key-b', 'key-a');

      expect([stale, rotated]).toEqual([false, true]);
      expect(await store().secretKeyId()).toBe('key-b');
    });
  });
}
