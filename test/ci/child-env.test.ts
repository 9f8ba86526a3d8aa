import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { childEnv } from '../support/child-env.js';
import { sched, useDaemons } from '../support/sched-harness.js';

/** Variables a developer may well have exported, each of which would send a test's process elsewhere. */
const STRAY = {
  SCHED_SOCKET: '/nonexistent/stray/sched.sock',
  SCHED_STORE: 'mysql://stray.example/sched',
  SCHED_CONFIG: '/nonexistent/stray/config.toml',
  SCHED_TZ: 'Mars/Olympus_Mons',
  TZ: 'Pacific/Kiritimati',
  NODE_OPTIONS: '--require /nonexistent/stray/preload.cjs',
};

/** The environment a running process was started with, as the kernel keeps it. */
function environOf(pid: number): Record<string, string> {
  const entries = fs
    .readFileSync(`/proc/${pid}/environ`, 'utf8')
    .split('\0')
    .filter(Boolean)
    .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]);
  return Object.fromEntries(entries);
}

describe('childEnv', () => {
  it('keeps the allow-listed variables of the runner and adds what the test sets', () => {
    const runner = {
      PATH: '/usr/bin',
      HOME: '/home/ada',
      LC_TIME: 'C',
      SCHED_STORE: 'x',
      TZ: 'UTC',
      OTHER: '1',
    };

    expect(childEnv({ SCHED_HOME: '/tmp/h', TZ: 'Europe/Berlin' }, runner)).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/ada',
      LC_TIME: 'C',
      SCHED_HOME: '/tmp/h',
      TZ: 'Europe/Berlin',
    });
  });
});

describe('the test process itself', () => {
  it('starts without the SCHED_* variables of the shell that ran the suite, except the suite settings', () => {
    const names = Object.keys(process.env).filter((name) => name.startsWith('SCHED_'));

    expect(names.filter((name) => !name.startsWith('SCHED_TEST_'))).toEqual([]);
  });
});

describe('processes started by tests, with stray variables in the runner', () => {
  const daemons = useDaemons(afterEach);
  const saved: Record<string, string | undefined> = {};
  beforeEach(() => {
    for (const [name, value] of Object.entries(STRAY)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
  });
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('given SCHED_STORE, SCHED_SOCKET, TZ and NODE_OPTIONS exported, when a daemon is started, then it sees none of them', async () => {
    const home = daemons.home();

    const daemon = await daemons.start(home);

    const environ = environOf(daemon.pid);
    expect(environ.SCHED_HOME).toBe(home);
    for (const name of Object.keys(STRAY)) expect(environ, name).not.toHaveProperty(name);
  });

  it('given the same stray variables, when the CLI runs, then it talks to the daemon of its own home', async () => {
    const home = daemons.home();
    const daemon = await daemons.start(home);

    const status = await sched(home, ['daemon', 'status', '--json']);
    const config = await sched(home, ['config', 'show', '--json']);

    expect(status.code, status.stderr).toBe(0);
    expect(status.json.pid).toBe(daemon.pid);
    expect(config.code, config.stderr).toBe(0);
    expect(path.dirname(config.json.settings.socket.value)).toBe(home);
  });
});
