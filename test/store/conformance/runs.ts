import { describe, expect, it } from 'vitest';
import type { Run } from '../../../src/core/run.js';
import type { Store } from '../../../src/store/store.js';
import { createJob, newRun, outcome, T0 } from './fixtures.js';
import type { CurrentStore } from './fixtures.js';

async function insertRuns(store: Store, jobId: string, count: number): Promise<Run[]> {
  const runs: Run[] = [];
  for (let index = 0; index < count; index += 1)
    runs.push(await store.insertRun(newRun(jobId, { scheduledFor: T0 + index })));
  return runs;
}

export function describeRunCases(store: CurrentStore): void {
  describe('run lifecycle', () => {
    it('Given a scheduled run, when it starts, then it is running with its start time and pid', async () => {
      const job = await createJob(store(), 'nightly');
      const run = await store().insertRun(newRun(job.id));

      await store().markRunStarted(run.id, T0 + 100, 4242);

      expect(await store().findRun(run.id)).toMatchObject({
        state: 'running',
        startedAt: T0 + 100,
        pid: 4242,
      });
    });

    it('Given no such run, when it is marked started, then RUN_NOT_FOUND is thrown', async () => {
      await expect(store().markRunStarted('missing', T0, null)).rejects.toMatchObject({
        code: 'RUN_NOT_FOUND',
      });
    });

    it('Given a running run, when it finishes, then the outcome and output tails are stored and returned', async () => {
      const job = await createJob(store(), 'nightly');
      const run = await store().insertRun(newRun(job.id));
      await store().markRunStarted(run.id, T0 + 100, 4242);

      const finished = await store().finishRun(
        run.id,
        outcome({ state: 'failed', exitCode: 3, error: 'exit 3', stderrTail: 'boom\n' }),
      );

      expect(finished).toMatchObject({
        state: 'failed',
        exitCode: 3,
        error: 'exit 3',
        stdoutTail: 'hello\n',
        stderrTail: 'boom\n',
        finishedAt: T0 + 61_000,
        pid: 4242,
      });
      expect(await store().findRun(run.id)).toEqual(finished);
    });

    it('Given a finished run, when it is finished again, then INVALID_STATE is thrown and the first outcome stays', async () => {
      const job = await createJob(store(), 'nightly');
      const run = await store().insertRun(newRun(job.id));
      const first = await store().finishRun(run.id, outcome());

      await expect(store().finishRun(run.id, outcome({ state: 'failed' }))).rejects.toMatchObject({
        code: 'INVALID_STATE',
      });

      expect(await store().findRun(run.id)).toEqual(first);
    });

    it('Given no such run, when it is finished, then RUN_NOT_FOUND is thrown', async () => {
      await expect(store().finishRun('missing', outcome())).rejects.toMatchObject({ code: 'RUN_NOT_FOUND' });
    });

    it('Given scheduled, running and finished runs, when unfinished runs are marked lost, then only the first two become lost and are returned', async () => {
      const job = await createJob(store(), 'nightly');
      const [scheduled, running, finished] = await insertRuns(store(), job.id, 3);
      await store().markRunStarted(running!.id, T0 + 1, 7);
      await store().finishRun(finished!.id, outcome());

      const lost = await store().markUnfinishedRunsLost(T0 + 500, 'daemon restarted');

      expect(lost.map((run) => run.id).sort()).toEqual([scheduled!.id, running!.id].sort());
      expect(lost[0]).toMatchObject({
        state: 'lost',
        finishedAt: T0 + 500,
        error: 'daemon restarted',
        jobName: 'nightly',
      });
      expect(await store().findRun(running!.id)).toMatchObject({
        state: 'lost',
        finishedAt: T0 + 500,
        error: 'daemon restarted',
      });
      expect(await store().findRun(finished!.id)).toMatchObject({ state: 'succeeded' });
      expect(await store().markUnfinishedRunsLost(T0 + 600, 'again')).toEqual([]);
    });

    it('Given no such run, when it is looked up, then the result is null', async () => {
      expect(await store().findRun('missing')).toBeNull();
    });
  });

  describe('listRuns', () => {
    it('Given runs of one job, when listed, then the newest comes first with the job name and without output tails', async () => {
      const job = await createJob(store(), 'nightly');
      const runs = await insertRuns(store(), job.id, 3);

      const page = await store().listRuns({ limit: 10 });

      expect(page.items.map((run) => run.id)).toEqual(runs.map((run) => run.id).reverse());
      expect(page.items[0]).toMatchObject({ jobName: 'nightly' });
      expect(page.items[0]).not.toHaveProperty('stdoutTail');
      expect(page.items[0]).not.toHaveProperty('stderrTail');
    });

    it('Given five runs, when listed two at a time, then three pages hold each run once', async () => {
      const job = await createJob(store(), 'nightly');
      const runs = await insertRuns(store(), job.id, 5);

      const first = await store().listRuns({ limit: 2 });
      const second = await store().listRuns({ limit: 2, cursor: first.nextCursor ?? undefined });
      const third = await store().listRuns({ limit: 2, cursor: second.nextCursor ?? undefined });

      expect([...first.items, ...second.items, ...third.items].map((run) => run.id)).toEqual(
        runs.map((run) => run.id).reverse(),
      );
      expect(third.nextCursor).toBeNull();
    });

    it('Given runs of two jobs in several states, when filtered by job and state, then only the matching runs come back', async () => {
      const nightly = await createJob(store(), 'nightly');
      const weekly = await createJob(store(), 'weekly');
      const [done, pending] = await insertRuns(store(), nightly.id, 2);
      await insertRuns(store(), weekly.id, 1);
      await store().finishRun(done!.id, outcome());

      const ofNightly = await store().listRuns({ limit: 10, jobId: nightly.id });
      const scheduledOfNightly = await store().listRuns({
        limit: 10,
        jobId: nightly.id,
        states: ['scheduled'],
      });

      expect(ofNightly.items.map((run) => run.id)).toEqual([pending!.id, done!.id]);
      expect(scheduledOfNightly.items.map((run) => run.id)).toEqual([pending!.id]);
    });

    it('Given runs of jobs with different labels, when filtered by label, then only runs of matching jobs come back', async () => {
      const prod = await createJob(store(), 'prod-job', { labels: { env: 'prod' } });
      const dev = await createJob(store(), 'dev-job', { labels: { env: 'dev' } });
      const [prodRun] = await insertRuns(store(), prod.id, 1);
      await insertRuns(store(), dev.id, 1);

      const page = await store().listRuns({ limit: 10, labels: { env: 'prod' } });

      expect(page.items.map((run) => run.id)).toEqual([prodRun!.id]);
    });
  });
}
