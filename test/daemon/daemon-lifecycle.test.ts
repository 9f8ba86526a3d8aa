import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, sched, useDaemons, waitFor } from '../support/sched-harness.js';

describe('the daemon process', () => {
  const { home, start } = useDaemons(afterEach);

  it('listens on a socket that only its owner may use', async () => {
    const dir = home();
    await start(dir);
    const mode = fs.statSync(path.join(dir, 'sched.sock')).mode & 0o777;
    expect(mode).toBe(0o600);
  });

  it('refuses to start a second daemon on the same home, and the first keeps serving', async () => {
    const dir = home();
    const first = await start(dir);
    const second = await sched(dir, ['daemon', 'run']);
    expect(second.code).toBe(4);
    expect(second.stderr).toContain(`already running`);
    expect(second.stderr).toContain(String(first.pid));
    const status = await sched(dir, ['daemon', 'status', '--json']);
    expect(status.code).toBe(0);
    expect(status.json.pid).toBe(first.pid);
  });

  it('marks a run lost after kill -9 and fires the job again after a restart', async () => {
    const dir = home();
    const daemon = await start(dir);
    const added = await sched(dir, ['add', 'slow', '--every', '1s', '--', 'sh', '-c', 'sleep 30']);
    expect(added.code).toBe(0);
    const running = await waitFor(async () => {
      const history = await sched(dir, ['history', 'slow', '--json']);
      return history.json?.items.find((run: { state: string }) => run.state === 'running');
    });
    daemon.process.kill('SIGKILL');
    await daemon.exited;

    await start(dir);
    const lost = await sched(dir, ['logs', running.id, '--json']);
    expect(lost.json.state).toBe('lost');
    await waitFor(async () => {
      const history = await sched(dir, ['history', 'slow', '--json']);
      return history.json?.items.some(
        (run: { id: string; createdAt: number }) =>
          run.id !== running.id && run.createdAt > lost.json.finishedAt,
      );
    });
    const jobs = await sched(dir, ['ls', '--json']);
    expect(jobs.json.items.map((job: { name: string }) => job.name)).toEqual(['slow']);
  });

  it('lets a running job finish within the grace period on SIGTERM', async () => {
    const dir = home();
    const daemon = await start(dir, ['--grace', '20s']);
    await sched(dir, ['add', 'short', '--every', '1h', '--', 'sh', '-c', 'sleep 1; echo done']);
    const triggered = await sched(dir, ['trigger', 'short', '--json']);
    await waitFor(
      async () => (await sched(dir, ['logs', triggered.json.id, '--json'])).json?.state === 'running',
    );
    expect(await daemon.stop('SIGTERM')).toBe(0);

    await start(dir);
    const run = await sched(dir, ['logs', triggered.json.id, '--json']);
    expect(run.json.state).toBe('succeeded');
    expect(run.json.stdoutTail).toBe('done\n');
  });

  it('kills and records a job that outlives the grace period, with its children', async () => {
    const dir = home();
    const daemon = await start(dir, ['--grace', '1s']);
    await sched(dir, ['add', 'stubborn', '--every', '1h', '--shell', 'sleep 60 & echo $!; wait']);
    const triggered = await sched(dir, ['trigger', 'stubborn', '--json']);
    const running = await waitFor(async () => {
      const run = (await sched(dir, ['logs', triggered.json.id, '--json'])).json;
      return run?.state === 'running' && run.pid ? run : null;
    });
    expect(await daemon.stop('SIGTERM')).toBe(0);
    expect(isAlive(running.pid)).toBe(false);

    await start(dir);
    const run = await sched(dir, ['logs', triggered.json.id, '--json']);
    expect(run.json.state).toBe('cancelled');
    expect(run.json.error).toContain('shut down');
    const grandchild = Number(run.json.stdoutTail.trim());
    expect(grandchild).toBeGreaterThan(0);
    expect(isAlive(grandchild)).toBe(false);
  });

  it('says on the first Ctrl-C what it waits for, and stops the runs on the second', async () => {
    const dir = home();
    const daemon = await start(dir, ['--grace', '5m']);
    await sched(dir, ['add', 'long', '--every', '1h', '--', 'sleep', '300']);
    const triggered = await sched(dir, ['trigger', 'long', '--json']);
    await waitFor(
      async () => (await sched(dir, ['logs', triggered.json.id, '--json'])).json?.state === 'running',
    );

    daemon.process.kill('SIGINT');
    await waitFor(async () =>
      daemon
        .output()
        .includes(
          'Stopping: waiting for 1 running run to finish (grace 5m). Press Ctrl-C again to stop it now.\n',
        ),
    );
    expect(isAlive(daemon.pid)).toBe(true);

    daemon.process.kill('SIGINT');
    expect(await daemon.exited).toBe(0);
    expect(daemon.output()).toContain('Stopping the running runs now');
    await start(dir);
    expect((await sched(dir, ['logs', triggered.json.id, '--json'])).json.state).toBe('cancelled');
  });
});
