import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, makeHome, removeHome, sched, waitFor } from '../support/sched-harness.js';

const homes: string[] = [];
/** Daemons `sched daemon start` put in the background, by the pid it reported. */
const pids: number[] = [];

afterEach(async () => {
  for (const pid of pids.splice(0)) {
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    await waitFor(async () => !isAlive(pid), 10_000);
  }
  for (const home of homes.splice(0)) removeHome(home);
});

function home(): string {
  const dir = makeHome('sched-ops-start-');
  homes.push(dir);
  return dir;
}

describe('sched daemon start', () => {
  it('starts the daemon in the background, logs to daemon.log in the home, and returns once it answers', async () => {
    const dir = home();

    const result = await sched(dir, ['daemon', 'start', '--json']);

    expect(result.code).toBe(0);
    pids.push(result.json.pid);
    expect(result.json).toEqual({
      started: true,
      pid: expect.any(Number),
      socket: path.join(dir, 'sched.sock'),
      log: path.join(dir, 'daemon.log'),
    });
    const status = await sched(dir, ['daemon', 'status', '--json']);
    expect(status.json.pid).toBe(result.json.pid);
    expect(fs.readFileSync(path.join(dir, 'daemon.log'), 'utf8')).toContain('"daemon:started"');
    expect(fs.statSync(path.join(dir, 'daemon.log')).mode & 0o777).toBe(0o600);
  });

  it('passes its daemon flags on to the daemon, and says in words where it went', async () => {
    const dir = home();

    const result = await sched(dir, ['daemon', 'start', '--tz', 'Asia/Kathmandu', '--grace', '5s']);

    expect(result.code).toBe(0);
    const pid = Number(/pid (\d+)/.exec(result.stdout)?.[1]);
    pids.push(pid);
    expect(result.stdout).toContain(`Started the daemon (pid ${pid}).`);
    expect(result.stdout).toContain(`Log:     ${path.join(dir, 'daemon.log')}`);
    expect((await sched(dir, ['add', 'zoned', '--every', '1h', '--json', '--', 'true'])).json.timezone).toBe(
      'Asia/Kathmandu',
    );
    expect(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toContain('--grace=5s');
  });

  it('given a daemon already running for the home, says so with exit 4 and starts no other', async () => {
    const dir = home();
    const first = await sched(dir, ['daemon', 'start', '--json']);
    pids.push(first.json.pid);

    const second = await sched(dir, ['daemon', 'start']);

    expect(second.code).toBe(4);
    expect(second.stderr).toContain(`A sched daemon (pid ${first.json.pid}) is already running`);
    expect(second.stderr).toContain('Hint:');
    expect((await sched(dir, ['daemon', 'status', '--json'])).json.pid).toBe(first.json.pid);
  });

  it('given a daemon that dies before it answers, prints the end of its log and exits non-zero', async () => {
    const dir = home();

    const result = await sched(dir, ['daemon', 'start', '--lease-ttl', '1s']);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain('The daemon exited (code 2) before it answered.');
    expect(result.stderr).toContain(`The end of ${path.join(dir, 'daemon.log')}:`);
    expect(result.stderr).toContain('--lease-ttl (1000 ms) must be at least four heartbeat intervals');
    expect(result.stderr).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
  });
});
