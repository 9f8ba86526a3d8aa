import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeHome, removeHome, sched, startDaemon, type RunningDaemon } from '../support/sched-harness.js';

const homes: string[] = [];
const daemons: RunningDaemon[] = [];

afterEach(async () => {
  await Promise.all(daemons.splice(0).map((daemon) => daemon.stop()));
  for (const home of homes.splice(0)) removeHome(home);
});

function home(): string {
  const dir = makeHome('sched-ops-doctor-');
  homes.push(dir);
  return dir;
}

type Check = { name: string; status: string; message: string; fix: string | null };
const check = (json: { checks: Check[] }, name: string) => json.checks.find((each) => each.name === name);

describe('sched doctor', () => {
  it('finds nothing wrong with a running daemon', async () => {
    const dir = home();
    daemons.push(await startDaemon(dir));

    const result = await sched(dir, ['doctor', '--json']);

    expect(result.code).toBe(0);
    expect(result.json.ok).toBe(true);
    for (const name of ['config', 'daemon', 'socket', 'store', 'timezones'])
      expect(check(result.json, name)).toMatchObject({ status: 'ok', fix: null });
    expect(check(result.json, 'daemon')?.message).toMatch(/^running, pid \d+, version /);
    expect(check(result.json, 'store')?.message).toContain('quick_check ok');
    // Whether the clock is synchronised depends on the host; doctor says it cannot tell without timedatectl.
    expect(['ok', 'warn', 'unknown']).toContain(check(result.json, 'clock')?.status);
  });

  it('fails without a daemon, names the fix and exits 7', async () => {
    const dir = home();

    const result = await sched(dir, ['doctor']);

    expect(result.code).toBe(7);
    expect(result.stdout).toMatch(/FAIL\s+daemon\s+The sched daemon is not running/);
    expect(result.stdout).toContain('fix: Start it: `sched daemon run`');
    expect(result.stdout).toMatch(/\d+ problems? found\./);
  });

  it('reports the same failures as JSON', async () => {
    const result = await sched(home(), ['doctor', '--json']);

    expect(result.code).toBe(7);
    expect(result.json.ok).toBe(false);
    expect(check(result.json, 'daemon')).toMatchObject({
      status: 'fail',
      fix: expect.stringContaining('sched daemon run'),
    });
    expect(check(result.json, 'socket')?.status).toBe('fail');
  });

  it('fails a socket that other users could open, and says how to fix it', async () => {
    const dir = home();
    daemons.push(await startDaemon(dir));
    const socket = path.join(dir, 'sched.sock');
    fs.chmodSync(socket, 0o666);

    const result = await sched(dir, ['doctor', '--json']);

    expect(result.code).toBe(4);
    expect(check(result.json, 'socket')).toMatchObject({
      status: 'fail',
      fix: expect.stringContaining(`chmod 600 ${socket}`),
    });
  });

  it('fails on a config file it cannot use', async () => {
    const dir = home();
    daemons.push(await startDaemon(dir));
    const file = path.join(dir, 'config.toml');
    fs.writeFileSync(file, 'log_level = "loud"\n');

    const result = await sched(dir, ['doctor', '--json'], { env: { SCHED_CONFIG: file } });

    expect(result.code).toBe(4);
    expect(check(result.json, 'config')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('"log_level" must be one of'),
    });
    expect(check(result.json, 'daemon')?.status).toBe('ok');
  });
});
