import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  makeHome,
  removeHome,
  sched,
  schedBin,
  startDaemon,
  waitFor,
  type RunningDaemon,
} from '../support/sched-harness.js';
import { childEnv } from '../support/child-env.js';
import { runWhere } from '../support/daemon-probe.js';

/** Waits for a flag file (so the test can start following first), then talks for about 2.5 s. */
const slowTalker = (flag: string) =>
  `while [ ! -e ${flag} ]; do sleep 0.05; done; echo one; sleep 1.2; echo two; sleep 1.2; echo three >&2`;

interface Followed {
  code: number | null;
  stdout: string;
  stderr: string;
  /** When each stdout chunk arrived, in ms since the follower started, with its text. */
  arrivals: { at: number; text: string }[];
  exitedAt: number;
}

function follow(home: string, args: string[]): { stderr: () => string; done: Promise<Followed> } {
  const started = performance.now();
  const child = spawn(process.execPath, [schedBin, 'logs', '--follow', ...args], {
    env: childEnv({ SCHED_HOME: home, NO_COLOR: '1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const result: Followed = { code: null, stdout: '', stderr: '', arrivals: [], exitedAt: 0 };
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    result.stdout += text;
    result.arrivals.push({ at: performance.now() - started, text });
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => (result.stderr += text));
  return {
    stderr: () => result.stderr,
    done: new Promise((resolve) =>
      child.once('close', (code) => resolve({ ...result, code, exitedAt: performance.now() - started })),
    ),
  };
}

describe('sched logs --follow', () => {
  let home: string;
  let daemon: RunningDaemon;
  let flag: string;
  let mark: string;
  let go: string;

  beforeAll(async () => {
    home = makeHome();
    daemon = await startDaemon(home);
    flag = path.join(home, 'go');
    expect((await sched(home, ['add', 'talker', '--every', '1h', '--shell', slowTalker(flag)])).code).toBe(0);
    mark = path.join(home, 'early-printed');
    go = path.join(home, 'go-on');
    const early = `echo early; touch ${mark}; while [ ! -e ${go} ]; do sleep 0.05; done; echo late; sleep 1`;
    expect((await sched(home, ['add', 'early', '--every', '1h', '--shell', early])).code).toBe(0);
    expect((await sched(home, ['add', 'quiet', '--every', '1h', '--', 'sh', '-c', 'echo fine'])).code).toBe(
      0,
    );
  });

  afterAll(async () => {
    await daemon.stop();
    removeHome(home);
  });

  it('given a run that prints over 2 seconds, when followed from its start, then its output comes live, once, in order, then how it ended', async () => {
    const run = (await sched(home, ['trigger', 'talker', '--json'])).json;
    const follower = follow(home, [run.id]);
    // The follower has subscribed and read the run once it says the run is running; then it may talk.
    await waitFor(async () =>
      follower.stderr().includes(`Run ${run.id} of talker, attempt 1 on ${run.node}: running`),
    );
    fs.writeFileSync(flag, '');
    const followed = await follower.done;

    expect(followed.code).toBe(0);
    expect(followed.stdout).toBe('one\ntwo\n');
    expect(followed.stderr).toContain('three\n');
    expect(followed.stderr.trimEnd().split('\n').at(-1)).toMatch(
      new RegExp(`^Run ${run.id} of talker, attempt 1 on ${run.node}: succeeded, exit 0, took \\d+s$`),
    );
    // Live: "one" was there well before the run ended, not printed at the end.
    const one = followed.arrivals.find((arrival) => arrival.text.includes('one'))!;
    expect(followed.exitedAt - one.at).toBeGreaterThan(1_500);
  });

  it('given a run that printed before it was followed, when followed, then what it printed so far comes first, then the rest, each once', async () => {
    const run = (await sched(home, ['trigger', 'early', '--json'])).json;
    // "early" is printed (and on the event stream within 100 ms) long before a new process subscribes.
    await waitFor(async () => fs.existsSync(mark));
    const follower = follow(home, [run.id]);
    await waitFor(async () =>
      follower.stderr().includes(`Run ${run.id} of early, attempt 1 on ${run.node}: running`),
    );
    fs.writeFileSync(go, '');
    const followed = await follower.done;
    expect(followed.code).toBe(0);
    expect(followed.stdout).toBe('early\nlate\n');
    expect(followed.stderr).not.toContain('came before following began');
  });

  it('given a finished run, when followed, then it prints like sched logs and exits at once', async () => {
    const run = (await sched(home, ['trigger', 'quiet', '--json'])).json;
    await runWhere(home, run.id, (current) => current.state === 'succeeded');
    const followed = await follow(home, [run.id]).done;
    expect(followed.code).toBe(0);
    expect(followed.stdout).toBe('fine\n');
    expect(followed.stderr).toMatch(
      new RegExp(`^Run ${run.id} of quiet, attempt 1 on ${run.node}: succeeded, exit 0, took \\S+\\n$`),
    );
  });

  it('given --json, when a run is followed, then it prints the finished run as JSON', async () => {
    const run = (await sched(home, ['trigger', 'quiet', '--json'])).json;
    const result = await sched(home, ['logs', '--follow', run.id, '--json']);
    expect(result.code).toBe(0);
    expect(result.json).toMatchObject({ id: run.id, state: 'succeeded', stdoutTail: 'fine\n' });
  });

  it('given an unknown run, when followed, then it says so and exits 3', async () => {
    const result = await sched(home, ['logs', '--follow', '01938f6e-7c1a-7cc2-9d3e-5b2f0a6c1d44']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('No run or job matches "01938f6e-7c1a-7cc2-9d3e-5b2f0a6c1d44".');
  });
});
