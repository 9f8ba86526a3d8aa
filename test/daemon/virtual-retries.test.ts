import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../support/fake-clock.js';
import { waitFor } from '../support/sched-harness.js';
import { useVirtualDaemons } from '../support/virtual-daemon.js';

describe('retries and timeouts in virtual time', () => {
  const { home, start } = useVirtualDaemons(afterEach);

  it('given a command that fails twice, retries it and records success on attempt 3 with gaps inside the jitter bounds', async () => {
    const daemon = await start();
    const counter = path.join(daemon.home, 'count');
    const script = `n=$(cat ${counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${counter}; [ $n -ge 3 ]`;
    await daemon.add({
      name: 'flaky',
      every: '1h',
      retries: 3,
      backoff: '1s',
      backoffFactor: 2,
      shell: script,
    });

    await daemon.call('job.trigger', { ref: 'flaky' });
    await daemon.idle();
    await daemon.run(3_000, 50);

    const runs = await daemon.runsOf('flaky');
    expect(runs.map((run) => [run.attempt, run.state])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
      [3, 'succeeded'],
    ]);
    expect(new Set(runs.map((run) => run.scheduledFor)).size).toBe(1);
    expect(runs[0]!.retriedBy).toBe(runs[1]!.id);
    // Full jitter: the delay before attempt n+1 lies in [0, backoff * factor^(n-1)], to the 50 ms step.
    const gap1 = runs[1]!.startedAt! - runs[0]!.finishedAt!;
    const gap2 = runs[2]!.startedAt! - runs[1]!.finishedAt!;
    expect(gap1).toBeGreaterThanOrEqual(0);
    expect(gap1).toBeLessThanOrEqual(1_000 + 50);
    expect(gap2).toBeGreaterThanOrEqual(0);
    expect(gap2).toBeLessThanOrEqual(2_000 + 50);
  });

  it('given a backoff without jitter, starts the retry exactly when its backoff is up and not before', async () => {
    const daemon = await start();
    await daemon.add({
      name: 'steady',
      every: '1h',
      retries: 1,
      backoff: '10m',
      jitter: false,
      shell: 'exit 3',
    });

    await daemon.call('job.trigger', { ref: 'steady' });
    await daemon.idle();
    const [failed, waiting] = await daemon.runsOf('steady');
    expect(waiting).toMatchObject({ attempt: 2, state: 'scheduled', dueAt: failed!.finishedAt! + 600_000 });
    await daemon.clock.advance(599_999);
    expect((await daemon.runsOf('steady'))[1]!.state).toBe('scheduled');
    await daemon.clock.advance(1);
    await daemon.idle();

    const retried = (await daemon.runsOf('steady'))[1]!;
    expect(retried).toMatchObject({ state: 'failed', exitCode: 3, startedAt: waiting!.dueAt });
  });

  it('given a waiting retry and a daemon restart, runs the retry at its time', async () => {
    const clock = new FakeClock();
    const dir = home();
    const marker = path.join(dir, 'attempts');
    let daemon = await start(clock, dir);
    await daemon.add({
      name: 'patient',
      every: '1h',
      retries: 1,
      backoff: '4s',
      jitter: false,
      shell: `echo $SCHED_ATTEMPT >> ${marker}; [ $SCHED_ATTEMPT -ge 2 ]`,
    });
    await daemon.call('job.trigger', { ref: 'patient' });
    await daemon.idle();
    const waiting = (await daemon.runsOf('patient')).find((run) => run.state === 'scheduled')!;
    await daemon.stop();
    await clock.advance(1_000);

    daemon = await start(clock, dir);
    await daemon.run(2_999, 100);
    expect((await daemon.runsOf('patient')).find((run) => run.id === waiting.id)!.state).toBe('scheduled');
    await daemon.run(100, 100);

    const done = (await daemon.runsOf('patient')).find((run) => run.id === waiting.id)!;
    expect(done).toMatchObject({ attempt: 2, state: 'succeeded' });
    expect(done.startedAt).toBeGreaterThanOrEqual(waiting.dueAt);
    expect(fs.readFileSync(marker, 'utf8').trim().split('\n')).toEqual(['1', '2']);
  });

  it('given --timeout, ends a run still going when its virtual timeout is up and records it timed out', async () => {
    const daemon = await start();
    await daemon.add({ name: 'slow', every: '1h', timeout: '30m', argv: ['sleep', '3600'] });
    await daemon.call('job.trigger', { ref: 'slow' });
    await waitFor(async () => (await daemon.runsOf('slow'))[0]?.pid ?? null);

    await daemon.clock.advance(29 * 60_000);
    expect((await daemon.runsOf('slow'))[0]!.state).toBe('running');
    await daemon.clock.advance(60_000);
    await daemon.idle();

    const [run] = await daemon.runsOf('slow');
    expect(run).toMatchObject({ state: 'timed_out', error: 'timed out after 1800s' });
    expect(run!.finishedAt! - run!.startedAt!).toBe(30 * 60_000);
  });
});
