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

describe('sched doctor on the transport to a PostgreSQL store', () => {
  // 192.0.2.0/24 is reserved for documentation: nothing answers there, so doctor must not try to connect.
  const REMOTE = 'postgres://sched:secret@192.0.2.10:5432/sched';
  const doctor = (store: string, env: Record<string, string> = {}) =>
    sched(home(), ['doctor', '--json'], { env: { SCHED_STORE: store, ...env }, timeoutMs: 20_000 });

  it('warns that a store on another host without sslmode goes in clear, without reaching the server', async () => {
    const result = await doctor(REMOTE);

    expect(check(result.json, 'transport')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('PostgreSQL at 192.0.2.10 without TLS (no sslmode)'),
      fix: expect.stringContaining('sslmode=verify-full'),
    });
    expect(JSON.stringify(result.json)).not.toContain('secret');
  });

  it('warns about sslmode=disable and allow, and about TLS that does not check the server (prefer, require)', async () => {
    for (const mode of ['disable', 'allow'])
      expect(check((await doctor(`${REMOTE}?sslmode=${mode}`)).json, 'transport')?.message).toContain(
        `without TLS (sslmode=${mode})`,
      );
    for (const mode of ['prefer', 'require'])
      expect(check((await doctor(`${REMOTE}?sslmode=${mode}`)).json, 'transport')).toMatchObject({
        status: 'warn',
        message: expect.stringContaining(`without checking the server's certificate (sslmode=${mode})`),
      });
  });

  it('passes verify-full with a CA from the URL or from pg_ca_file, and a server on loopback', async () => {
    const inUrl = await doctor(`${REMOTE}?sslmode=verify-full&sslrootcert=/etc/sched/ca.pem`);
    const inSettings = await doctor(REMOTE, { SCHED_PG_CA_FILE: '/etc/sched/ca.pem' });
    const local = await doctor('postgres://sched@127.0.0.1:5432/sched');

    for (const result of [inUrl, inSettings])
      expect(check(result.json, 'transport')).toMatchObject({
        status: 'ok',
        message: 'PostgreSQL at 192.0.2.10 over TLS, server certificate checked (sslmode=verify-full)',
      });
    expect(check(local.json, 'transport')).toMatchObject({
      status: 'ok',
      message: expect.stringContaining('on this host'),
    });
  });

  it('has no transport check for a SQLite store', async () => {
    expect(check((await sched(home(), ['doctor', '--json'])).json, 'transport')).toBeUndefined();
  });
});
