import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, sched, useDaemons, waitFor } from '../support/sched-harness.js';

// Backoff timing, waiting retries across a restart and timeouts are tested in virtual time in
// test/daemon/virtual-retries.test.ts; these keep retries end to end with real time and real processes.
describe('retries through the real CLI and daemon', () => {
  const { home, start } = useDaemons(afterEach);
  const runsOf = async (dir: string, job: string) =>
    ((await sched(dir, ['history', job, '--limit', '100', '--json'])).json?.items ?? []).slice().reverse();

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
