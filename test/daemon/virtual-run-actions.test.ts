import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/sched-harness.js';
import { useVirtualDaemons, type VirtualDaemon } from '../support/virtual-daemon.js';

const TEN_MINUTES = 10 * 60_000;

/** A job whose first attempt fails and whose one retry waits ten minutes; the retry succeeds. */
async function waitingRetry(daemon: VirtualDaemon, name: string) {
  await daemon.add({
    name,
    every: '1d',
    retries: 1,
    backoff: '10m',
    jitter: false,
    shell: '[ "$SCHED_ATTEMPT" -ge 2 ]',
  });
  await daemon.call('job.trigger', { ref: name });
  await daemon.idle();
  const [failed, waiting] = await daemon.runsOf(name);
  expect(waiting).toMatchObject({ attempt: 2, state: 'scheduled', dueAt: failed!.finishedAt! + TEN_MINUTES });
  return { failed: failed!, waiting: waiting! };
}

describe('acting on waiting runs, in virtual time', () => {
  const { start } = useVirtualDaemons(afterEach);

  it('given a retry waiting out its backoff, when it is killed, then it ends cancelled naming who did it and never starts, even after its time', async () => {
    const daemon = await start();
    const { waiting } = await waitingRetry(daemon, 'flaky');
    const started: string[] = [];
    daemon.daemon.events.on('run:started', ({ runId }) => started.push(runId));

    const killed = await daemon.call('run.kill', { id: waiting.id });
    await daemon.run(2 * TEN_MINUTES, 60_000);

    expect(killed).toMatchObject({ id: waiting.id, state: 'cancelled', startedAt: null });
    expect(killed.error).toMatch(/^cancelled by \S+ with sched kill before it started$/);
    const runs = await daemon.runsOf('flaky');
    // The cancelled retry ends the chain: no attempt follows it.
    expect(runs.map((run) => [run.attempt, run.state, run.startedAt === null])).toEqual([
      [1, 'failed', false],
      [2, 'cancelled', true],
    ]);
    expect(started).toEqual([]);
    const audit = await daemon.call('audit.list', { jobRef: 'flaky' });
    expect(audit.items.find((entry) => entry.action === 'run.kill')).toMatchObject({
      before: { runId: waiting.id, state: 'scheduled' },
      after: { runId: waiting.id, state: 'cancelled' },
    });
  });

  it('given a retry waiting out its backoff, when retried with now, then the same attempt starts at once and no attempt is added', async () => {
    const daemon = await start();
    const { waiting } = await waitingRetry(daemon, 'patient');
    const askedAt = daemon.clock.now();

    const started = await daemon.call('run.retry', { id: waiting.id, now: true });
    await daemon.idle();
    await daemon.run(2 * TEN_MINUTES, 60_000);

    expect(started).toMatchObject({ id: waiting.id, attempt: 2, state: 'running', startedAt: askedAt });
    const runs = await daemon.runsOf('patient');
    expect(runs.map((run) => [run.attempt, run.state])).toEqual([
      [1, 'failed'],
      [2, 'succeeded'],
    ]);
    expect(runs[1]!.startedAt).toBe(askedAt);
    expect(runs[1]!.startedAt!).toBeLessThan(waiting.dueAt);
  });

  it('given runs that are not waiting, when retried with now, then each is refused with what to do instead and nothing is added', async () => {
    const daemon = await start();
    const { failed, waiting } = await waitingRetry(daemon, 'flaky');

    await expect(daemon.call('run.retry', { id: failed.id, now: true })).rejects.toMatchObject({
      code: 'INVALID_STATE',
      message: expect.stringMatching(/is failed, not waiting to start/),
      hint: expect.stringMatching(/without --now/),
    });
    await expect(daemon.call('run.retry', { id: waiting.id })).rejects.toMatchObject({
      code: 'INVALID_STATE',
      message: expect.stringMatching(/is waiting to start/),
      hint: expect.stringMatching(/--now/),
    });

    expect((await daemon.runsOf('flaky')).map((run) => run.state)).toEqual(['failed', 'scheduled']);
  });

  it('given an instant queued behind a running one (--concurrency queue), when the queued run is killed, then it is cancelled and does not start when the running one ends', async () => {
    const daemon = await start();
    const release = path.join(daemon.home, 'release');
    await daemon.add({
      name: 'serial',
      every: '1m',
      concurrency: 'queue',
      cwd: daemon.home,
      shell: 'while [ ! -e release ]; do sleep 0.02; done',
    });
    await daemon.clock.advance(60_000);
    await waitFor(async () => (await daemon.runsOf('serial'))[0]?.pid ?? null);
    await daemon.clock.advance(60_000);
    const queued = await waitFor(async () =>
      (await daemon.runsOf('serial')).find((run) => run.state === 'scheduled'),
    );

    const killed = await daemon.call('run.kill', { id: queued.id });
    fs.writeFileSync(release, '');
    await daemon.idle();

    expect(killed).toMatchObject({ id: queued.id, state: 'cancelled', startedAt: null });
    const runs = await daemon.runsOf('serial');
    expect(runs.map((run) => run.state)).toEqual(['succeeded', 'cancelled']);
    expect(runs[1]!.startedAt).toBeNull();
  });

  it('given a triggered run waiting for a slot under --max-concurrent, when it is killed, then it is cancelled and does not take the slot when it frees', async () => {
    const daemon = await start(undefined, undefined, { maxConcurrent: 1 });
    const release = path.join(daemon.home, 'release');
    const holdOpen = { cwd: daemon.home, shell: 'while [ ! -e release ]; do sleep 0.02; done' };
    await daemon.add({ name: 'long', every: '1d', ...holdOpen });
    await daemon.add({ name: 'next', every: '1d', shell: 'true' });
    await daemon.call('job.trigger', { ref: 'long' });
    const queued = await daemon.call('job.trigger', { ref: 'next' });
    expect(queued.state).toBe('scheduled');

    const killed = await daemon.call('run.kill', { id: queued.id });
    fs.writeFileSync(release, '');
    await daemon.idle();

    expect(killed).toMatchObject({ id: queued.id, state: 'cancelled', startedAt: null });
    expect((await daemon.runsOf('next')).map((run) => [run.state, run.startedAt])).toEqual([
      ['cancelled', null],
    ]);
    expect((await daemon.runsOf('long'))[0]!.state).toBe('succeeded');
  });

  it('given dead runs of a job, when redriven with a dry run, then for real, then again, then the first lists them, the second adds one attempt each and the third adds nothing', async () => {
    const daemon = await start();
    const marker = path.join(daemon.home, 'fixed');
    await daemon.add({ name: 'sync', every: '1d', shell: `test -e ${marker}` });
    await daemon.call('job.trigger', { ref: 'sync' });
    await daemon.idle();
    await daemon.clock.advance(3_600_000);
    const since = daemon.clock.now();
    for (let i = 0; i < 2; i += 1) {
      await daemon.clock.advance(1_000);
      await daemon.call('job.trigger', { ref: 'sync' });
      await daemon.idle();
    }
    const [old, ...dead] = await daemon.runsOf('sync');

    const dry = await daemon.call('run.redrive', { jobRef: 'sync', since, dryRun: true });
    expect(dry.redriven.map(({ dead: run, retry }) => [run.id, retry])).toEqual(
      dead.map((run) => [run.id, null]),
    );
    expect(await daemon.runsOf('sync')).toHaveLength(3);

    fs.writeFileSync(marker, '');
    const done = await daemon.call('run.redrive', { jobRef: 'sync', since });
    await daemon.idle();
    await waitFor(
      async () => (await daemon.runsOf('sync')).filter((run) => run.state === 'succeeded').length === 2,
    );
    const again = await daemon.call('run.redrive', { jobRef: 'sync', since });

    expect(done.redriven.map(({ dead: run, retry }) => [run.id, retry?.attempt])).toEqual(
      dead.map((run) => [run.id, 2]),
    );
    const runs = await daemon.runsOf('sync');
    expect(runs).toHaveLength(5);
    expect(runs.find((run) => run.id === old!.id)).toMatchObject({ state: 'failed', retriedBy: null });
    expect(again.redriven).toEqual([]);
    expect(again.skipped.map(({ run, retriedBy }) => [run.id, retriedBy])).toEqual(
      done.redriven.map(({ dead: run, retry }) => [run.id, retry!.id]),
    );
  });
});
