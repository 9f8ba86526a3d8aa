import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runWhere } from '../support/daemon-probe.js';
import { sched, useDaemons } from '../support/sched-harness.js';

function modeOf(file: string): string {
  return (fs.statSync(file).mode & 0o777).toString(8).padStart(4, '0');
}

describe('a daemon started with umask 022', () => {
  // The daemons these tests start inherit this process's umask, as from a login shell.
  let runnerUmask: number;
  beforeAll(() => {
    runnerUmask = process.umask(0o022);
  });
  afterAll(() => {
    process.umask(runnerUmask);
  });
  const { home, start } = useDaemons(afterEach);

  it('gives its jobs that umask, so the files they create are 0644 as under cron and systemd', async () => {
    const dir = home();
    const work = path.join(dir, 'work');
    fs.mkdirSync(work);
    await start(dir);
    await sched(dir, ['add', 'touch', '--every', '1h', '--cwd', work, '--shell', 'umask; touch f']);

    const triggered = await sched(dir, ['trigger', 'touch', '--json']);
    const run = await runWhere(dir, triggered.json.id, (found) => found.finishedAt !== null);

    expect(run.state).toBe('succeeded');
    expect(run.stdoutTail.trim()).toBe('0022');
    expect(modeOf(path.join(work, 'f'))).toBe('0644');
  });

  it('keeps its own files private: its home and folders 0700, its socket, database and lock files 0600', async () => {
    const dir = path.join(home(), 'fresh-home');
    await start(dir);
    // A write, so the database's -wal and -shm files are there.
    await sched(dir, ['add', 'quiet', '--every', '1h', '--', 'true']);

    for (const folder of ['.', 'children'])
      expect(`${folder} ${modeOf(path.join(dir, folder))}`).toBe(`${folder} 0700`);
    const files = ['sched.sock', 'sched.db', 'sched.db-wal', 'sched.db-shm'].concat(
      ['daemon.lock', 'sched.db.lock'].flatMap((lock) => [lock, `${lock}-journal`, `${lock}.pid`]),
    );
    for (const file of files) expect(`${file} ${modeOf(path.join(dir, file))}`).toBe(`${file} 0600`);
  });
});
