import { describe, expect, it } from 'vitest';
import { createJob, definition, newJob, stamp, T0 } from './fixtures.js';
import type { CurrentStore } from './fixtures.js';

export function describeJobCases(store: CurrentStore): void {
  describe('createJob and findJob', () => {
    it('Given a new job, when it is created, then it comes back active at version 1 with its definition', async () => {
      const input = newJob('nightly', { labels: { team: 'ops' } });

      const job = await store().createJob(input, stamp('job.create'));

      expect(job).toEqual({
        ...input.definition,
        id: input.id,
        state: 'active',
        version: 1,
        owner: 'alice',
        createdAt: T0,
        updatedAt: T0,
        deletedAt: null,
        nextRunAt: input.nextRunAt,
      });
    });

    it('Given a new job created paused, when it is read back, then it is paused, has no next instant and is not due', async () => {
      const job = await store().createJob(
        newJob('quiet', { state: 'paused', nextRunAt: null }),
        stamp('job.create'),
      );

      expect(job).toMatchObject({ state: 'paused', nextRunAt: null });
      expect(await store().findJob('quiet')).toEqual(job);
      expect(await store().countJobs('paused')).toBe(1);
      expect(await store().dueJobs(T0 + 3_600_000, 10)).toEqual([]);
    });

    it('Given a created job, when it is looked up by id or by name, then both give the stored job', async () => {
      const job = await createJob(store(), 'nightly');

      expect(await store().findJob(job.id)).toEqual(job);
      expect(await store().findJob('nightly')).toEqual(job);
    });

    it('Given no such job, when it is looked up, then the result is null', async () => {
      expect(await store().findJob('missing')).toBeNull();
    });

    it('Given a live job named nightly, when another job named nightly is created, then NAME_TAKEN is thrown and nothing is written', async () => {
      await createJob(store(), 'nightly');

      await expect(createJob(store(), 'nightly')).rejects.toMatchObject({
        code: 'NAME_TAKEN',
        message: expect.stringContaining('nightly'),
      });

      expect((await store().listJobs({ limit: 10 })).items).toHaveLength(1);
      expect((await store().listAudit({ limit: 10 })).items).toHaveLength(1);
    });

    it('Given a cancelled job named nightly, when a new job named nightly is created, then the name resolves to the new job and the id to the old', async () => {
      const old = await createJob(store(), 'nightly');
      await store().cancelJob(old.id, old.version, T0 + 1, stamp('job.cancel', T0 + 1));

      const reborn = await createJob(store(), 'nightly');

      expect((await store().findJob('nightly'))?.id).toBe(reborn.id);
      expect(await store().findJob(old.id)).toMatchObject({ id: old.id, state: 'cancelled' });
    });
  });

  describe('findJob of cancelled names', () => {
    it('Given two cancelled jobs of one name, when found by name including cancelled ones, then the newest comes back; without the option, none', async () => {
      const first = await createJob(store(), 'nightly');
      await store().cancelJob(first.id, first.version, T0 + 1, stamp('job.cancel', T0 + 1));
      const second = await createJob(store(), 'nightly');
      await store().cancelJob(second.id, second.version, T0 + 2, stamp('job.cancel', T0 + 2));

      expect((await store().findJob('nightly', { includeCancelledNames: true }))?.id).toBe(second.id);
      expect(await store().findJob('nightly')).toBeNull();
    });
  });

  describe('countJobs', () => {
    it('Given active, paused and cancelled jobs, when they are counted by state, then each state has its own count', async () => {
      await createJob(store(), 'a');
      const b = await createJob(store(), 'b');
      const c = await createJob(store(), 'c');
      await store().updateJob(
        b.id,
        b.version,
        { state: 'paused', nextRunAt: null },
        stamp('job.pause', T0 + 1),
      );
      await store().cancelJob(c.id, c.version, T0 + 1, stamp('job.cancel', T0 + 1));

      expect(await store().countJobs('active')).toBe(1);
      expect(await store().countJobs('paused')).toBe(1);
      expect(await store().countJobs('cancelled')).toBe(1);
    });
  });

  describe('updateJob', () => {
    it('Given a job, when its definition changes at the current version, then the version grows and updatedAt is the audit time', async () => {
      const job = await createJob(store(), 'nightly');
      const changed = definition('nightly', { description: 'backs up', timeoutMs: 5_000 });

      const updated = await store().updateJob(
        job.id,
        1,
        { definition: changed },
        stamp('job.update', T0 + 5),
      );

      expect(updated).toMatchObject({
        description: 'backs up',
        timeoutMs: 5_000,
        version: 2,
        updatedAt: T0 + 5,
        createdAt: T0,
      });
      expect(await store().findJob(job.id)).toEqual(updated);
    });

    it('Given a job, when it is paused with no next run, then state and nextRunAt are stored', async () => {
      const job = await createJob(store(), 'nightly');

      await store().updateJob(job.id, 1, { state: 'paused', nextRunAt: null }, stamp('job.pause'));

      expect(await store().findJob(job.id)).toMatchObject({ state: 'paused', nextRunAt: null, version: 2 });
    });

    it('Given a job changed meanwhile, when it is updated with the old version, then VERSION_CONFLICT is thrown and the row is unchanged', async () => {
      const job = await createJob(store(), 'nightly');
      const current = await store().updateJob(job.id, 1, { nextRunAt: T0 + 7 }, stamp('job.update'));

      await expect(
        store().updateJob(job.id, 1, { definition: definition('renamed') }, stamp('job.update')),
      ).rejects.toMatchObject({ code: 'VERSION_CONFLICT', details: { expected: 1, actual: 2 } });

      expect(await store().findJob(job.id)).toEqual(current);
    });

    it('Given no such job, when it is updated, then JOB_NOT_FOUND is thrown', async () => {
      await expect(
        store().updateJob('missing', 1, { nextRunAt: null }, stamp('job.update')),
      ).rejects.toMatchObject({
        code: 'JOB_NOT_FOUND',
      });
    });

    it('Given two live jobs, when one is renamed to the other, then NAME_TAKEN is thrown and it keeps its name', async () => {
      await createJob(store(), 'nightly');
      const weekly = await createJob(store(), 'weekly');

      await expect(
        store().updateJob(weekly.id, 1, { definition: definition('nightly') }, stamp('job.update')),
      ).rejects.toMatchObject({ code: 'NAME_TAKEN' });

      expect(await store().findJob(weekly.id)).toEqual(weekly);
    });

    it('Given a cancelled job, when it is updated, then INVALID_STATE is thrown', async () => {
      const job = await createJob(store(), 'nightly');
      const cancelled = await store().cancelJob(job.id, 1, T0 + 1, stamp('job.cancel'));

      await expect(
        store().updateJob(job.id, cancelled.version, { state: 'active' }, stamp('job.resume')),
      ).rejects.toMatchObject({ code: 'INVALID_STATE' });
    });
  });

  describe('cancelJob', () => {
    it('Given a job, when it is cancelled, then it is soft-deleted, stops firing and keeps its id', async () => {
      const job = await createJob(store(), 'nightly');

      const cancelled = await store().cancelJob(job.id, 1, T0 + 9, stamp('job.cancel', T0 + 9));

      expect(cancelled).toMatchObject({
        state: 'cancelled',
        deletedAt: T0 + 9,
        updatedAt: T0 + 9,
        nextRunAt: null,
        version: 2,
      });
      expect(await store().findJob(job.id)).toEqual(cancelled);
      expect(await store().findJob('nightly')).toBeNull();
    });

    it('Given a job changed meanwhile, when it is cancelled with the old version, then VERSION_CONFLICT is thrown and it stays active', async () => {
      const job = await createJob(store(), 'nightly');
      await store().updateJob(job.id, 1, { nextRunAt: T0 + 7 }, stamp('job.update'));

      await expect(store().cancelJob(job.id, 1, T0 + 9, stamp('job.cancel'))).rejects.toMatchObject({
        code: 'VERSION_CONFLICT',
      });

      expect(await store().findJob(job.id)).toMatchObject({ state: 'active', deletedAt: null });
    });
  });

  describe('rewriteDefinition', () => {
    const sealedEnv = {
      kind: 'command' as const,
      argv: ['true'],
      shell: null,
      cwd: null,
      env: { TOKEN: 'sealed:v1:k2:x' },
    };

    it('Given a job, when its definition is rewritten at its version, then it is stored with the same version and no audit entry or event', async () => {
      const job = await createJob(store(), 'nightly');
      const eventsBefore = await store().latestEventId();

      const written = await store().rewriteDefinition({ ...job, target: sealedEnv });

      expect(written).toBe(true);
      expect(await store().findJob(job.id)).toEqual({ ...job, target: sealedEnv });
      expect((await store().listAudit({ limit: 10 })).items).toHaveLength(1);
      expect(await store().latestEventId()).toBe(eventsBefore);
    });

    it('Given a job changed meanwhile, when its definition is rewritten at the old version, then nothing is written', async () => {
      const job = await createJob(store(), 'nightly');
      const changed = await store().updateJob(job.id, 1, { nextRunAt: T0 + 7 }, stamp('job.update'));

      const written = await store().rewriteDefinition({ ...job, target: sealedEnv });

      expect(written).toBe(false);
      expect(await store().findJob(job.id)).toEqual(changed);
    });

    it('Given a cancelled job, when its definition is rewritten, then it is stored and the job stays cancelled', async () => {
      const job = await createJob(store(), 'nightly');
      const cancelled = await store().cancelJob(job.id, 1, T0 + 1, stamp('job.cancel'));

      const written = await store().rewriteDefinition({ ...cancelled, target: sealedEnv });

      expect(written).toBe(true);
      expect(await store().findJob(job.id)).toEqual({ ...cancelled, target: sealedEnv });
    });
  });
}
