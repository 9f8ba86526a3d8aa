import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, sched, useDaemons, waitFor } from '../support/sched-harness.js';

describe('retries through the real CLI and daemon', () => {
  const { home, start } = useDaemons(afterEach);
  const runsOf = async (dir: string, job: string) =>
    ((await sched(dir, ['history', job, '--limit', '100', '--json'])).json?.items ?? []).slice().reverse();

  it('retries a command that fails twice and records success on attempt 3 with gaps inside the jitter bounds', async () => {
    const dir = home();
    await start(dir);
    const counter = path.join(dir, 'count');
    const script = `n=$(cat ${counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${counter}; [ $n -ge 3 ]`;
    await sched(dir, [
      'add',
      'flaky',
      '--every',
      '1h',
      '--retries',
      '3',
      '--backoff',
      '1s',
      '--backoff-factor',
      '2',
      '--shell',
      script,
    ]);
    await sched(dir, ['trigger', 'flaky']);

    const runs = await waitFor(async () => {
      const all = await runsOf(dir, 'flaky');
      return all.some((run: { state: string }) => run.state === 'succeeded') ? all : null;
    }, 30_000);

    expect(runs.map((run: { attempt: number; state: string }) => [run.attempt, run.state])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
      [3, 'succeeded'],
    ]);
    expect(new Set(runs.map((run: { scheduledFor: number }) => run.scheduledFor)).size).toBe(1);
    expect(runs[0].retriedBy).toBe(runs[1].id);
    const gap1 = runs[1].startedAt - runs[0].finishedAt;
    const gap2 = runs[2].startedAt - runs[1].finishedAt;
    // Full jitter: the delay before attempt n+1 lies in [0, backoff * factor^(n-1)], plus scheduling slack.
    expect(gap1).toBeGreaterThanOrEqual(0);
    expect(gap1).toBeLessThanOrEqual(1_000 + 500);
    expect(gap2).toBeGreaterThanOrEqual(0);
    expect(gap2).toBeLessThanOrEqual(2_000 + 500);
  });

  it('marks a job that always fails dead after its last attempt, audits it, and sched retry runs it again', async () => {
    const dir = home();
    await start(dir);
    await sched(dir, [
      'add',
      'doomed',
      '--every',
      '1h',
      '--retries',
      '1',
      '--backoff',
      '200ms',
      '--shell',
      'exit 7',
    ]);
    await sched(dir, ['trigger', 'doomed']);

    const dead = await waitFor(async () => {
      const failed = (await sched(dir, ['history', 'doomed', '--status', 'failed', '--json'])).json.items;
      return failed.length === 2
        ? failed.find((run: { retriedBy: string | null }) => run.retriedBy === null)
        : null;
    });
    expect(dead).toMatchObject({ attempt: 2, exitCode: 7 });
    const audit = await waitFor(async () => {
      const entries = (await sched(dir, ['audit', 'doomed', '--json'])).json.items;
      return entries.find((entry: { action: string }) => entry.action === 'run.dead');
    });
    expect(audit.after).toMatchObject({ runId: dead.id, attempt: 2 });

    const redriven = await sched(dir, ['retry', dead.id, '--json']);
    expect(redriven.code).toBe(0);
    expect(redriven.json).toMatchObject({ attempt: 3, trigger: 'retry', scheduledFor: dead.scheduledFor });
    const third = await waitFor(async () => {
      const run = (await sched(dir, ['logs', redriven.json.id, '--json'])).json;
      return run.state === 'failed' ? run : null;
    });
    expect(third.exitCode).toBe(7);
    const again = await sched(dir, ['retry', dead.id, '--json']);
    expect(again.code).toBe(4);
    expect(again.json.error.code).toBe('INVALID_STATE');
  });

  it('keeps a waiting retry across a daemon restart and runs it at its time', async () => {
    const dir = home();
    const marker = path.join(dir, 'attempts');
    const first = await start(dir);
    await sched(dir, [
      'add',
      'patient',
      '--every',
      '1h',
      '--retries',
      '1',
      '--backoff',
      '4s',
      '--no-backoff-jitter',
      '--shell',
      `echo $SCHED_ATTEMPT >> ${marker}; [ $SCHED_ATTEMPT -ge 2 ]`,
    ]);
    await sched(dir, ['trigger', 'patient']);
    const waiting = await waitFor(async () =>
      (await runsOf(dir, 'patient')).find((run: { state: string }) => run.state === 'scheduled'),
    );
    await first.stop('SIGTERM');

    await start(dir);
    const done = await waitFor(
      async () =>
        (await runsOf(dir, 'patient')).find(
          (run: { id: string; state: string }) => run.id === waiting.id && run.state === 'succeeded',
        ),
      20_000,
    );
    expect(done.attempt).toBe(2);
    expect(done.startedAt).toBeGreaterThanOrEqual(waiting.dueAt);
    expect(fs.readFileSync(marker, 'utf8').trim().split('\n')).toEqual(['1', '2']);
  });

  it('retries a run lost to kill -9 after the restart, and the job sees a new SCHED_FENCE', async () => {
    const dir = home();
    const marker = path.join(dir, 'fences');
    const first = await start(dir);
    await sched(dir, [
      'add',
      'survivor',
      '--every',
      '1h',
      '--retries',
      '2',
      '--backoff',
      '0s',
      '--shell',
      `echo "$SCHED_ATTEMPT $SCHED_FENCE" >> ${marker}; [ $SCHED_ATTEMPT -ge 2 ] || sleep 30`,
    ]);
    await sched(dir, ['trigger', 'survivor']);
    await waitFor(async () => fs.existsSync(marker));
    first.process.kill('SIGKILL');
    await first.exited;

    await start(dir);
    const runs = await waitFor(async () => {
      const all = await runsOf(dir, 'survivor');
      return all.some((run: { state: string }) => run.state === 'succeeded') ? all : null;
    }, 20_000);
    expect(runs.map((run: { attempt: number; state: string }) => [run.attempt, run.state])).toEqual([
      [1, 'lost'],
      [2, 'succeeded'],
    ]);
    const [one, two] = fs
      .readFileSync(marker, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' ').map(Number));
    expect(one![0]).toBe(1);
    expect(two![0]).toBe(2);
    expect(two![1]).toBeGreaterThan(one![1]!);
  });

  it('kills a running run and its children with sched kill and records it cancelled', async () => {
    const dir = home();
    await start(dir);
    await sched(dir, ['add', 'long', '--every', '1h', '--shell', 'sleep 60 & echo $!; wait']);
    const triggered = await sched(dir, ['trigger', 'long', '--json']);
    await waitFor(async () => (await sched(dir, ['logs', triggered.json.id, '--json'])).json.pid);
    // The output is kept when the run ends; give the script a moment to print its child's pid.
    await new Promise((resolve) => setTimeout(resolve, 500));

    const killed = await sched(dir, ['kill', triggered.json.id, '--json']);

    expect(killed.code).toBe(0);
    expect(killed.json).toMatchObject({ id: triggered.json.id, state: 'cancelled' });
    const grandchild = Number(killed.json.stdoutTail.trim());
    expect(grandchild).toBeGreaterThan(0);
    await waitFor(async () => !isAlive(grandchild), 5_000);
    const again = await sched(dir, ['kill', triggered.json.id, '--json']);
    expect(again.json.error.code).toBe('INVALID_STATE');
  });
});
