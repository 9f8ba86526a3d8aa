import { describe, expect, it } from 'vitest';
import type { Run } from '../../../src/core/run.js';
import type { Store } from '../../../src/store/store.js';
import { createJob, newJob, newRun, outcome, stamp, T0 } from './fixtures.js';
import type { CurrentStore } from './fixtures.js';

async function insertRuns(store: Store, jobId: string, count: number): Promise<Run[]> {
  const runs: Run[] = [];
  for (let index = 0; index < count; index += 1)
    runs.push(await store.insertRun(newRun(jobId, { scheduledFor: T0 + index })));
  return runs;
}

export function describeRunCases(store: CurrentStore): void {
  describe('run lifecycle', () => {
    it('Given a run inserted as running, when it is read back, then it is running since its creation', async () => {
      const job = await createJob(store(), 'nightly');
      const run = await store().insertRun(newRun(job.id, { state: 'running', now: T0 + 5 }));

      expect(await store().findRun(run.id)).toMatchObject({ state: 'running', startedAt: T0 + 5, pid: null });
    });

    // Which of two concurrent claims wins is the backend's order (SQLite's group commit keeps call order,
    // a PostgreSQL pool does not); that exactly one does is the contract.
    it('Given a waiting run, when it is claimed twice at once, then exactly one claim wins, it is running since that claim, and a later claim loses', async () => {
      const job = await createJob(store(), 'nightly');
      const run = await store().insertRun(newRun(job.id));

      const [first, second] = await Promise.all([
        store().claimRun(run.id, T0 + 100),
        store().claimRun(run.id, T0 + 101),
      ]);

      expect([first, second].filter((won) => won)).toHaveLength(1);
      expect(await store().findRun(run.id)).toMatchObject({
        state: 'running',
        startedAt: first ? T0 + 100 : T0 + 101,
      });
      expect(await store().claimRun(run.id, T0 + 102)).toBe(false);
    });

    it('Given a waiting run made by another node, when this node claims it (plainly or alone), then the run names the node that claimed it', async () => {
      const job = await createJob(store(), 'nightly');
      const unmarked = await store().insertRun(newRun(job.id, { scheduledFor: T0 + 1 }));
      await store().claimRun(unmarked.id, T0 + 100);
      await store().finishRun(unmarked.id, outcome());
      store().markEventsWith('node-b');
      const plain = await store().insertRun(newRun(job.id, { scheduledFor: T0 + 2 }));
      const alone = await store().insertRun(newRun(job.id, { scheduledFor: T0 + 3 }));

      await store().claimRun(plain.id, T0 + 101);
      await store().finishRun(plain.id, outcome());
      await store().claimRunAlone(alone.id, () => T0 + 102);

      expect((await store().findRun(unmarked.id))?.node).toBe('node-a');
      expect((await store().findRun(plain.id))?.node).toBe('node-b');
      expect(await store().findRun(alone.id)).toMatchObject({ state: 'running', node: 'node-b' });
    });

    it('Given a running run, when its pid is set and it finishes, then the outcome, pid and output tails are stored', async () => {
      const job = await createJob(store(), 'nightly');
      const run = await store().insertRun(newRun(job.id, { state: 'running' }));
      await store().setRunPid(run.id, 4242);

      const { run: finished, retry } = await store().finishRun(
        run.id,
        outcome({ state: 'failed', exitCode: 3, error: 'exit 3', stderrTail: 'boom\n' }),
      );

      expect(retry).toBeNull();
      expect(finished).toMatchObject({
        state: 'failed',
        exitCode: 3,
        error: 'exit 3',
        stdoutTail: 'hello\n',
        stderrTail: 'boom\n',
        finishedAt: T0 + 61_000,
        pid: 4242,
        retriedBy: null,
      });
      expect(await store().findRun(run.id)).toEqual(finished);
    });

    it('Given a run that wrote more than its tails keep, when it finishes, then the bytes written per stream are stored', async () => {
      const job = await createJob(store(), 'nightly');
      const run = await store().insertRun(newRun(job.id, { state: 'running' }));
      expect(await store().findRun(run.id)).toMatchObject({ stdoutBytes: null, stderrBytes: null });

      await store().finishRun(run.id, outcome({ stdoutBytes: 5_000_000_000, stderrBytes: 0 }));

      expect(await store().findRun(run.id)).toMatchObject({ stdoutBytes: 5_000_000_000, stderrBytes: 0 });
    });

    it('Given an HTTP run, when it finishes, then its status and response headers are kept', async () => {
      const job = await createJob(store(), 'hook');
      const run = await store().insertRun(newRun(job.id, { state: 'running' }));

      const { run: finished } = await store().finishRun(
        run.id,
        outcome({
          exitCode: null,
          httpStatus: 204,
          responseHeaders: { 'content-type': 'text/plain' },
          stdoutTail: '',
        }),
      );

      expect(finished).toMatchObject({ httpStatus: 204, responseHeaders: { 'content-type': 'text/plain' } });
      expect((await store().listRuns({ limit: 1 })).items[0]).toMatchObject({ httpStatus: 204 });
    });

    it('Given a failed run with a retry, when it finishes, then the retry waits as the next attempt of the same instant and the failed run points at it', async () => {
      const job = await createJob(store(), 'nightly');
      const run = await store().insertRun(newRun(job.id, { state: 'running' }));

      const { run: failed, retry } = await store().finishRun(
        run.id,
        outcome({ state: 'failed', exitCode: 1 }),
        newRun(job.id, { id: 'retry-1', attempt: 2, trigger: 'retry', dueAt: T0 + 70_000 }),
      );

      expect(retry).toMatchObject({
        id: 'retry-1',
        attempt: 2,
        scheduledFor: run.scheduledFor,
        state: 'scheduled',
        dueAt: T0 + 70_000,
        trigger: 'retry',
      });
      expect(failed.retriedBy).toBe('retry-1');
      expect((await store().dueRuns(T0 + 69_999, 10)).map((due) => due.id)).toEqual([]);
      expect((await store().dueRuns(T0 + 70_000, 10)).map((due) => due.id)).toEqual(['retry-1']);
    });

    it('Given a finished run, when it is finished again, then INVALID_STATE is thrown and the first outcome stays', async () => {
      const job = await createJob(store(), 'nightly');
      const run = await store().insertRun(newRun(job.id));
      const { run: first } = await store().finishRun(run.id, outcome());

      await expect(store().finishRun(run.id, outcome({ state: 'failed' }))).rejects.toMatchObject({
        code: 'INVALID_STATE',
      });

      expect(await store().findRun(run.id)).toEqual(first);
    });

    it('Given no such run, when it is finished, then RUN_NOT_FOUND is thrown', async () => {
      await expect(store().finishRun('missing', outcome())).rejects.toMatchObject({ code: 'RUN_NOT_FOUND' });
    });

    it('Given a dead run, when it is redriven twice, then the first makes the next attempt and the second is refused', async () => {
      const job = await createJob(store(), 'nightly');
      const run = await store().insertRun(newRun(job.id, { state: 'running' }));
      await store().finishRun(run.id, outcome({ state: 'failed' }));

      const retried = await store().retryRun(
        run.id,
        newRun(job.id, { id: 'redrive', attempt: 2, state: 'running' }),
      );

      expect(retried).toMatchObject({ id: 'redrive', attempt: 2, state: 'running' });
      await expect(store().retryRun(run.id, newRun(job.id, { attempt: 3 }))).rejects.toMatchObject({
        code: 'INVALID_STATE',
        details: { retriedBy: 'redrive' },
      });
    });

    it('Given a running run, when a retry is asked for it, then INVALID_STATE is thrown and nothing is inserted', async () => {
      const job = await createJob(store(), 'nightly');
      const run = await store().insertRun(newRun(job.id, { state: 'running' }));

      await expect(store().retryRun(run.id, newRun(job.id, { attempt: 2 }))).rejects.toMatchObject({
        code: 'INVALID_STATE',
      });

      expect((await store().listRuns({ limit: 10 })).items).toHaveLength(1);
    });

    it('Given waiting, running and finished runs, when running runs are listed, then only the running one comes back', async () => {
      const job = await createJob(store(), 'nightly');
      const [, running, finished] = await insertRuns(store(), job.id, 3);
      await store().claimRun(running!.id, T0 + 1);
      await store().finishRun(finished!.id, outcome());

      expect((await store().listRunningRuns()).map((run) => run.id)).toEqual([running!.id]);
    });

    it('Given a waiting run, when it is cancelled while waiting, then it ends cancelled without having started and can no longer be claimed', async () => {
      const job = await createJob(store(), 'nightly');
      const run = await store().insertRun(newRun(job.id));

      const cancelled = await store().cancelWaitingRun(
        run.id,
        outcome({ state: 'cancelled', exitCode: null, error: 'killed by alice', stdoutTail: '' }),
      );

      expect(cancelled).toMatchObject({
        id: run.id,
        jobName: 'nightly',
        state: 'cancelled',
        startedAt: null,
        finishedAt: T0 + 61_000,
        error: 'killed by alice',
      });
      expect(await store().claimRun(run.id, T0 + 62_000)).toBe(false);
      expect(await store().findRun(run.id)).toMatchObject({ state: 'cancelled', startedAt: null });
    });

    it('Given a run that started, when it is cancelled as if still waiting, then null comes back and the run is left running', async () => {
      const job = await createJob(store(), 'nightly');
      const run = await store().insertRun(newRun(job.id));
      await store().claimRun(run.id, T0 + 1);

      expect(await store().cancelWaitingRun(run.id, outcome({ state: 'cancelled' }))).toBeNull();
      expect(await store().findRun(run.id)).toMatchObject({ state: 'running' });
    });

    it('Given no such run, when it is looked up, then the result is null', async () => {
      expect(await store().findRun('missing')).toBeNull();
    });
  });

  describe('concurrent writes', () => {
    it('Given many writes at once with one failing, when they settle, then only one of the two same-named creates fails and the others all land', async () => {
      const names = Array.from({ length: 50 }, (_, index) => `job-${index}`);

      const results = await Promise.allSettled([...names, 'job-7'].map((name) => createJob(store(), name)));

      const rejected = results.filter((result) => result.status === 'rejected');
      expect(rejected).toMatchObject([{ reason: { code: 'NAME_TAKEN' } }]);
      // Which job-7 loses is the backend's order (SQLite's group commit keeps call order; a pool does not).
      expect([results[7]?.status, results.at(-1)?.status].sort()).toEqual(['fulfilled', 'rejected']);
      const listed = (await store().listJobs({ limit: 100 })).items.map((job) => job.name);
      expect(listed.sort()).toEqual([...names].sort());
    });
  });

  describe('idempotency records', () => {
    const claim = (key: string, createdAt = T0) => ({
      key,
      method: 'job.add',
      fingerprint: 'f1',
      createdAt,
      expiredBefore: createdAt - 86_400_000,
    });

    it('Given a job created with a claim, when the key is looked up, then the stored response is the job', async () => {
      const job = await store().createJob(newJob('nightly'), stamp('job.create'), claim('k1'));

      expect(await store().findIdempotencyRecord('k1')).toMatchObject({
        key: 'k1',
        method: 'job.add',
        fingerprint: 'f1',
        createdAt: T0,
        response: { id: job.id, name: 'nightly' },
      });
    });

    it('Given a used key, when another create claims it, then IDEMPOTENCY_MISMATCH is thrown and no job is created', async () => {
      await store().createJob(newJob('first'), stamp('job.create'), claim('k1'));

      await expect(
        store().createJob(newJob('second'), stamp('job.create'), claim('k1')),
      ).rejects.toMatchObject({ code: 'IDEMPOTENCY_MISMATCH', details: { keyTaken: true } });

      expect(await store().findJob('second')).toBeNull();
    });

    it('Given an expired key, when a new request claims it, then the new record replaces the old', async () => {
      await store().createJob(newJob('first'), stamp('job.create'), claim('k1', T0));
      const later = T0 + 2 * 86_400_000;

      await store().createJob(newJob('second'), stamp('job.create', later), claim('k1', later));

      expect(await store().findIdempotencyRecord('k1')).toMatchObject({
        createdAt: later,
        response: { name: 'second' },
      });
    });

    it('Given a manual run inserted with a claim, when the key is looked up, then the response is the run', async () => {
      const job = await createJob(store(), 'nightly');
      const run = await store().insertRun(newRun(job.id), { ...claim('t1'), method: 'job.trigger' });

      expect(await store().findIdempotencyRecord('t1')).toMatchObject({
        method: 'job.trigger',
        response: { id: run.id },
      });
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

    it('Given runs of jobs of two owners, when filtered by owner, then only runs of that owner’s jobs come back', async () => {
      const mine = await createJob(store(), 'bob-job', { owner: 'bob' });
      const theirs = await createJob(store(), 'alice-job');
      const [bobRun] = await insertRuns(store(), mine.id, 1);
      await insertRuns(store(), theirs.id, 1);

      const page = await store().listRuns({ limit: 10, owner: 'bob' });

      expect(page.items.map((run) => run.id)).toEqual([bobRun!.id]);
    });
  });

  describe('listRuns by time', () => {
    it('Given runs that started and one still waiting, when listed since and until a time, then only runs whose start (or, unstarted, due time) lies in the range come back', async () => {
      const job = await createJob(store(), 'nightly');
      const early = await store().insertRun(newRun(job.id, { state: 'running', now: T0 + 1_000 }));
      const middle = await store().insertRun(
        newRun(job.id, { state: 'running', now: T0 + 5_000, scheduledFor: T0 + 2 }),
      );
      const late = await store().insertRun(
        newRun(job.id, { state: 'running', now: T0 + 9_000, scheduledFor: T0 + 3 }),
      );
      // A retry of an old instant that waits until later: placed by when it is due, not by its instant.
      const waiting = await store().insertRun(
        newRun(job.id, { scheduledFor: T0 + 4, dueAt: T0 + 6_000, now: T0 + 500 }),
      );

      const ids = async (range: { since?: number; until?: number }) =>
        (await store().listRuns({ limit: 10, ...range })).items.map((run) => run.id);

      expect(await ids({ since: T0 + 5_000 })).toEqual([waiting.id, late.id, middle.id]);
      expect(await ids({ until: T0 + 5_000 })).toEqual([middle.id, early.id]);
      expect(await ids({ since: T0 + 2_000, until: T0 + 8_000 })).toEqual([waiting.id, middle.id]);
      expect(await ids({ since: T0 + 9_001 })).toEqual([]);
    });
  });

  describe('run id prefixes', () => {
    it('Given runs, when looked up by the start of one id, then only the runs whose id starts so come back, in id order', async () => {
      const job = await createJob(store(), 'nightly');
      const runs = await insertRuns(store(), job.id, 3);
      const [first] = runs;

      expect(await store().findRunIdsByPrefix(first!.id, 10)).toEqual([first!.id]);
      expect(await store().findRunIdsByPrefix(first!.id.slice(0, 4), 10)).toEqual(
        runs.map((run) => run.id).sort(),
      );
      expect(await store().findRunIdsByPrefix(first!.id.slice(0, 4), 2)).toHaveLength(2);
    });

    it('Given runs, when looked up by a start no id has, then nothing comes back', async () => {
      const job = await createJob(store(), 'nightly');
      await insertRuns(store(), job.id, 2);

      expect(await store().findRunIdsByPrefix('zzzz', 10)).toEqual([]);
      expect(await store().findRunIdsByPrefix('%', 10)).toEqual([]);
    });
  });
}
