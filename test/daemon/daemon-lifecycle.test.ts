import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { runsOf, runWhere } from '../support/daemon-probe.js';
import { isAlive, sched, useDaemons, waitFor } from '../support/sched-harness.js';

/** The host was renamed while its daemon was dead (a container restarted): the run names the old hostname. */
function recordUnderOldHostname(home: string, runId: string): void {
  const database = new Database(path.join(home, 'sched.db'));
  database.prepare('UPDATE runs SET node = ? WHERE id = ?').run('old-container-7f3c', runId);
  database.close();
}

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

  it('refuses a second daemon on the same SQLite database from another home, and leaves the first one’s runs alone', async () => {
    const dir = home();
    const first = await start(dir);
    await sched(dir, ['add', 'slow', '--every', '1h', '--', 'sleep', '30']);
    const triggered = await sched(dir, ['trigger', 'slow', '--json']);
    await runWhere(dir, triggered.json.id, (run) => run.state === 'running');
    // Another spelling of the same file: through a symlink to the first home.
    const other = home();
    fs.symlinkSync(dir, path.join(other, 'link'));
    const database = path.join(other, 'link', 'sched.db');

    const second = await sched(other, ['daemon', 'run', '--store', `sqlite:${database}`]);

    expect(second.code).toBe(4);
    expect(second.stderr).toContain(String(first.pid));
    expect(second.stderr).toContain(fs.realpathSync(path.join(dir, 'sched.db')));
    expect(second.stderr).toMatch(/hint|--store/i);
    expect(second.stderr).not.toMatch(/\n\s+at /);
    const run = await sched(dir, ['logs', triggered.json.id, '--json']);
    expect(run.json.state).toBe('running');
    const status = await sched(dir, ['daemon', 'status', '--json']);
    expect(status.json.pid).toBe(first.pid);
    await sched(dir, ['kill', triggered.json.id]); // not left behind by the cleanup's kill -9
    // Longer than `sched`'s own 60 s limit, so a second daemon that did start is ended by it, not left behind.
  }, 90_000);

  it('says which SQLite database it cannot lock when its folder does not exist, without a stack trace', async () => {
    const dir = home();
    const database = path.join(dir, 'missing', 'sched.db');

    const result = await sched(dir, ['daemon', 'run', '--store', `sqlite:${database}`]);

    expect(result.code).toBe(7);
    expect(result.stderr).toContain(`Cannot lock the SQLite database ${database}`);
    expect(result.stderr).toMatch(/Hint: Check that its folder exists/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(fs.existsSync(path.join(dir, 'missing'))).toBe(false);
  });

  it.each([
    ['a restart', () => undefined],
    ['a restart under another hostname', recordUnderOldHostname],
  ] as const)(
    'marks a run lost after kill -9 and fires the job again after %s',
    async (_after, renameHost) => {
      const dir = home();
      const daemon = await start(dir);
      const added = await sched(dir, ['add', 'slow', '--every', '1s', '--', 'sh', '-c', 'sleep 30']);
      expect(added.code).toBe(0);
      const running = await waitFor(async () =>
        (await runsOf(dir, 'slow')).find((run) => run.state === 'running'),
      );
      daemon.process.kill('SIGKILL');
      await daemon.exited;
      renameHost(dir, running.id);

      await start(dir);
      const lost = await sched(dir, ['logs', running.id, '--json']);
      expect(lost.json.state).toBe('lost');
      await waitFor(async () =>
        (await runsOf(dir, 'slow')).some(
          (run) => run.id !== running.id && run.createdAt > lost.json.finishedAt,
        ),
      );
      const jobs = await sched(dir, ['ls', '--json']);
      expect(jobs.json.items.map((job: { name: string }) => job.name)).toEqual(['slow']);
    },
  );

  it('lets a running job finish within the grace period on SIGTERM', async () => {
    const dir = home();
    const daemon = await start(dir, ['--grace', '60s']);
    // The job runs until the test lets it end, so a slow machine cannot finish it before the signal.
    const started = path.join(dir, 'started');
    const release = path.join(dir, 'release');
    await sched(dir, [
      'add',
      'short',
      '--every',
      '1h',
      '--shell',
      `touch ${started}; while [ ! -e ${release} ]; do sleep 0.1; done; echo done`,
    ]);
    const triggered = await sched(dir, ['trigger', 'short', '--json']);
    await waitFor(async () => fs.existsSync(started));
    const stopped = daemon.stop('SIGTERM');
    await waitFor(async () => daemon.output().includes('"daemon:stopping"'));
    fs.writeFileSync(release, '');
    expect(await stopped).toBe(0);

    await start(dir);
    const run = await sched(dir, ['logs', triggered.json.id, '--json']);
    expect(run.json.state).toBe('succeeded');
    expect(run.json.stdoutTail).toBe('done\n');
  });

  it('stops on SIGTERM with a queued run waiting, and leaves that run for the next daemon instead of starting it', async () => {
    const dir = home();
    const daemon = await start(dir, ['--grace', '1s']);
    await sched(dir, ['add', 'q', '--every', '2s', '--concurrency', 'queue', '--', 'sleep', '25']);
    const queued = await waitFor(
      async () => (await runsOf(dir, 'q')).find((run) => run.state === 'scheduled'),
      30_000,
    );
    expect(await daemon.stop('SIGTERM')).toBe(0);
    expect(daemon.output()).not.toContain('could not be started');

    await start(dir, ['--grace', '1s']);
    const run = await sched(dir, ['logs', queued.id, '--json']);
    expect(['scheduled', 'running']).toContain(run.json.state);
  });

  it('kills and records a job that outlives the grace period, with its children', async () => {
    const dir = home();
    const daemon = await start(dir, ['--grace', '1s']);
    await sched(dir, ['add', 'stubborn', '--every', '1h', '--shell', 'sleep 60 & echo $!; wait']);
    const triggered = await sched(dir, ['trigger', 'stubborn', '--json']);
    const running = await runWhere(dir, triggered.json.id, (run) => run.state === 'running' && !!run.pid);
    expect(await daemon.stop('SIGTERM')).toBe(0);
    expect(isAlive(running.pid!)).toBe(false);

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
    await runWhere(dir, triggered.json.id, (run) => run.state === 'running');

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
