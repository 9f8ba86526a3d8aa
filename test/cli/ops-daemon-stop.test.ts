import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  isAlive,
  makeHome,
  removeHome,
  sched,
  startDaemon,
  waitFor,
  type RunningDaemon,
} from '../support/sched-harness.js';

const homes: string[] = [];
const daemons: RunningDaemon[] = [];

afterEach(async () => {
  await Promise.all(daemons.splice(0).map((daemon) => daemon.stop('SIGKILL')));
  for (const home of homes.splice(0)) removeHome(home);
});

async function running(): Promise<RunningDaemon> {
  const home = makeHome('sched-ops-stop-');
  homes.push(home);
  const daemon = await startDaemon(home);
  daemons.push(daemon);
  return daemon;
}

/** Starts a job that sleeps, and waits until its run is under way. */
async function busy(daemon: RunningDaemon): Promise<void> {
  expect((await sched(daemon.home, ['add', 'sleeper', '--every', '1h', '--', 'sleep', '30'])).code).toBe(0);
  expect((await sched(daemon.home, ['trigger', 'sleeper'])).code).toBe(0);
  await waitFor(async () => {
    const history = await sched(daemon.home, ['history', 'sleeper', '--json']);
    return history.json?.items?.some((run: { state: string }) => run.state === 'running');
  });
}

describe('sched daemon stop', () => {
  it('stops the daemon and waits until its process is gone', async () => {
    const daemon = await running();

    const result = await sched(daemon.home, ['daemon', 'stop', '--json']);

    expect(result.code).toBe(0);
    expect(result.json).toMatchObject({ stopped: true, pid: daemon.pid });
    expect(isAlive(daemon.pid)).toBe(false);
    expect(await daemon.exited).toBe(0);
    expect(fs.existsSync(path.join(daemon.home, 'sched.sock'))).toBe(false);
  });

  it('says so in words', async () => {
    const daemon = await running();
    const result = await sched(daemon.home, ['daemon', 'stop']);
    expect(result.stdout).toMatch(new RegExp(`^Stopped the daemon \\(pid ${daemon.pid}\\) in \\d`));
  });

  it('cuts the grace period short with --grace', async () => {
    const daemon = await running();
    await busy(daemon);
    const started = Date.now();

    const result = await sched(daemon.home, ['daemon', 'stop', '--grace', '200ms', '--json']);

    expect(result.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(isAlive(daemon.pid)).toBe(false);
  });

  it('gives up after --wait and says what is holding the daemon', async () => {
    const daemon = await running();
    await busy(daemon);

    const result = await sched(daemon.home, ['daemon', 'stop', '--grace', '20s', '--wait', '300ms']);

    expect(result.code).toBe(4);
    expect(result.stderr).toContain(`The daemon (pid ${daemon.pid}) is still running`);
    expect(result.stderr).toContain('--grace 0s');
  });

  it('exits 7 when no daemon runs', async () => {
    const home = makeHome('sched-ops-stop-none-');
    homes.push(home);
    const result = await sched(home, ['daemon', 'stop']);
    expect(result.code).toBe(7);
  });
});
