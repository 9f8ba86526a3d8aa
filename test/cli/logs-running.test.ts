import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  makeHome,
  removeHome,
  sched,
  startDaemon,
  waitFor,
  type RunningDaemon,
} from '../support/sched-harness.js';
import { runWhere } from '../support/daemon-probe.js';

function commonPrefix(a: string, b: string): string {
  let length = 0;
  while (length < a.length && a[length] === b[length]) length += 1;
  return a.slice(0, length);
}

/** The shortest start of `id` (at least 4 characters) that no other run's id has. */
async function shortestPrefix(home: string, id: string): Promise<string> {
  const others = (await sched(home, ['history', '--limit', '1000', '--json'])).json.items
    .map((item: { id: string }) => item.id)
    .filter((other: string) => other !== id);
  const shared = Math.max(4, ...others.map((other: string) => commonPrefix(other, id).length + 1));
  return id.slice(0, shared);
}

function finished(home: string, id: string) {
  return runWhere(home, id, (run) => run.state === 'succeeded');
}

describe('sched logs of a running run, of a job, and by a shortened id', () => {
  let home: string;
  let daemon: RunningDaemon;
  let go: string;

  beforeAll(async () => {
    home = makeHome();
    daemon = await startDaemon(home);
    go = path.join(home, 'go');
    const talker = `echo first; while [ ! -e ${go} ]; do sleep 0.05; done; echo second`;
    expect((await sched(home, ['add', 'talker', '--every', '1h', '--shell', talker])).code).toBe(0);
    expect((await sched(home, ['add', 'quiet', '--every', '1h', '--', 'echo', 'fine'])).code).toBe(0);
    expect((await sched(home, ['add', 'broken', '--every', '1h', '--', 'false'])).code).toBe(0);
    const flood = "head -c 100000 /dev/zero | tr '\\0' x";
    expect((await sched(home, ['add', 'flood', '--every', '1h', '--shell', flood])).code).toBe(0);
  });

  afterAll(async () => {
    await daemon.stop();
    removeHome(home);
  });

  it('given a run that printed a line and waits, when its logs are read, then the line so far is shown', async () => {
    fs.rmSync(go, { force: true });
    const run = (await sched(home, ['trigger', 'talker', '--json'])).json;
    try {
      const shown = await waitFor(async () => {
        const result = await sched(home, ['logs', run.id]);
        return result.stdout === 'first\n' ? result : null;
      });
      expect(shown.code).toBe(0);
      expect(shown.stderr).toContain(`Run ${run.id} of talker, attempt 1 on ${run.node}: running`);
      const json = (await sched(home, ['logs', run.id, '--json'])).json;
      expect(json).toMatchObject({ state: 'running', stdoutTail: 'first\n', stdoutBytes: 6, outputSeq: 1 });
    } finally {
      fs.writeFileSync(go, '');
    }
    expect((await finished(home, run.id)).stdoutTail).toBe('first\nsecond\n');
  });

  it('given a job name, when its logs are read, then its latest run is shown', async () => {
    const older = (await sched(home, ['trigger', 'quiet', '--json'])).json;
    await finished(home, older.id);
    const latest = (await sched(home, ['trigger', 'quiet', '--json'])).json;
    await finished(home, latest.id);

    const result = await sched(home, ['logs', 'quiet', '--json']);
    expect(result.code).toBe(0);
    expect(result.json).toMatchObject({ id: latest.id, jobName: 'quiet', stdoutTail: 'fine\n' });
  });

  it('given the first characters of one run id, when its logs are read, then that run is shown', async () => {
    const run = (await sched(home, ['trigger', 'quiet', '--json'])).json;
    await finished(home, run.id);
    const prefix = await shortestPrefix(home, run.id);

    const result = await sched(home, ['logs', prefix, '--json']);
    expect(result.code).toBe(0);
    expect(result.json.id).toBe(run.id);
  });

  it('given the first characters of a failed run id, when it is retried, then that run gets its next attempt', async () => {
    const run = (await sched(home, ['trigger', 'broken', '--json'])).json;
    await runWhere(home, run.id, (current) => current.state === 'failed');

    const retried = await sched(home, ['retry', await shortestPrefix(home, run.id), '--json']);
    expect(retried.code).toBe(0);
    expect(retried.json).toMatchObject({ jobName: 'broken', attempt: 2, trigger: 'retry' });
  });

  it('given a prefix two runs share, when their logs are read, then it fails with exit 2 listing both', async () => {
    const a = (await sched(home, ['trigger', 'quiet', '--json'])).json;
    const b = (await sched(home, ['trigger', 'quiet', '--json'])).json;
    await finished(home, a.id);
    await finished(home, b.id);
    const prefix = commonPrefix(a.id, b.id);
    expect(prefix.length).toBeGreaterThanOrEqual(4);

    const result = await sched(home, ['logs', prefix]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`runs have an id starting with ${prefix}: `));
    expect(result.stderr).toContain(a.id);
    expect(result.stderr).toContain(b.id);
    const killed = await sched(home, ['kill', prefix, '--json']);
    expect(killed.code).toBe(2);
    expect(killed.json.error.code).toBe('RUN_ID_AMBIGUOUS');
  });

  it('given a run that wrote more than 64 KiB, when its logs are read, then a line says how much was cut', async () => {
    const run = (await sched(home, ['trigger', 'flood', '--json'])).json;
    const stored = await finished(home, run.id);
    expect(stored).toMatchObject({ stdoutBytes: 100_000 });
    expect(stored.stdoutTail).toHaveLength(64 * 1024);

    const result = await sched(home, ['logs', run.id]);
    expect(result.stderr).toContain('… 34,464 bytes of stdout cut (kept the last 64 KiB)');
    expect(result.stdout).toBe(`${'x'.repeat(64 * 1024)}\n`);
  });
});
