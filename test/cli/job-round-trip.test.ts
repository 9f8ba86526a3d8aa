import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isAlive,
  makeHome,
  removeHome,
  sched,
  sleep,
  startDaemon,
  waitFor,
  type RunningDaemon,
} from '../support/sched-harness.js';
import { runsOf, runWhere } from '../support/daemon-probe.js';
import { addOneShotSoon } from '../support/one-shot.js';

describe('sched against a real daemon', () => {
  let home: string;
  let daemon: RunningDaemon;

  beforeAll(async () => {
    home = makeHome();
    daemon = await startDaemon(home);
  });

  afterAll(async () => {
    await daemon.stop('SIGKILL');
    removeHome(home);
  });

  it('adds a job and shows it in ls and show', async () => {
    const added = await sched(home, [
      'add',
      'nightly',
      '--cron',
      '0 3 * * *',
      '--tz',
      'Europe/Berlin',
      '--label',
      'team=ops',
      '--description',
      'backup',
      '--',
      './backup.sh',
      '--full',
    ]);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('nightly');

    const list = await sched(home, ['ls', '--json']);
    const job = list.json.items.find((item: { name: string }) => item.name === 'nightly');
    expect(job).toMatchObject({
      state: 'active',
      timezone: 'Europe/Berlin',
      labels: { team: 'ops' },
      schedule: { kind: 'cron', expression: '0 3 * * *' },
    });
    expect(job.target.argv).toEqual(['./backup.sh', '--full']);

    const shown = await sched(home, ['show', 'nightly', '--json']);
    expect(shown.json.job.id).toBe(job.id);
    expect(shown.json.upcoming).toHaveLength(5);
    expect(
      new Date(shown.json.upcoming[0]).toLocaleString('en-GB', {
        timeZone: 'Europe/Berlin',
        hour: '2-digit',
        minute: '2-digit',
      }),
    ).toBe('03:00');
    const byId = await sched(home, ['show', job.id]);
    expect(byId.code).toBe(0);
    expect(byId.stdout).toContain('nightly');
  });

  it('updates, pauses and resumes a job, bumping its version', async () => {
    await sched(home, ['add', 'report', '--cron', '0 9 * * 1-5', '--', 'echo', 'report']);
    const updated = await sched(home, ['update', 'report', '--cron', '30 9 * * 1-5', '--json']);
    expect(updated.code).toBe(0);
    expect(updated.json.schedule.expression).toBe('30 9 * * 1-5');
    expect(updated.json.version).toBe(2);

    const paused = await sched(home, ['pause', 'report', '--json']);
    expect(paused.json).toMatchObject({ state: 'paused', nextRunAt: null });
    const resumed = await sched(home, ['resume', 'report', '--json']);
    expect(resumed.json.state).toBe('active');
    expect(resumed.json.nextRunAt).toBeGreaterThan(Date.now());
  });

  it('filters ls by label and pages with a cursor', async () => {
    for (const name of ['page-a', 'page-b', 'page-c'])
      await sched(home, ['add', name, '--every', '1h', '--label', 'group=paging', '--', 'true']);
    const first = await sched(home, ['ls', '--label', 'group=paging', '--limit', '2', '--json']);
    expect(first.json.items.map((job: { name: string }) => job.name)).toEqual(['page-a', 'page-b']);
    const second = await sched(home, [
      'ls',
      '--label',
      'group=paging',
      '--limit',
      '2',
      '--cursor',
      first.json.nextCursor,
      '--json',
    ]);
    expect(second.json.items.map((job: { name: string }) => job.name)).toEqual(['page-c']);
    expect(second.json.nextCursor).toBeNull();
  });

  it('runs a job every second, keeps its output, and stops firing on cancel while history stays', async () => {
    expect((await sched(home, ['add', 'tick', '--every', '1s', '--', 'sh', '-c', 'echo hi'])).code).toBe(0);
    const succeeded = await waitFor(async () => {
      const runs = await runsOf(home, 'tick', ['succeeded']);
      return runs.length >= 4 ? runs : null;
    }, 30_000);
    const logs = await sched(home, ['logs', succeeded[0]!.id]);
    expect(logs.stdout).toBe('hi\n');
    const run = (await sched(home, ['logs', succeeded[0]!.id, '--json'])).json;
    expect(run).toMatchObject({ exitCode: 0, state: 'succeeded', attempt: 1, trigger: 'schedule' });

    expect((await sched(home, ['cancel', 'tick'])).code).toBe(0);
    await sleep(1_500);
    const before = (await sched(home, ['history', 'tick', '--limit', '1000', '--json'])).json.items.length;
    await sleep(2_500);
    const after = (await sched(home, ['history', 'tick', '--limit', '1000', '--json'])).json.items.length;
    expect(after).toBe(before);
    expect(after).toBeGreaterThanOrEqual(4);
    const cancelled = await sched(home, ['ls', '--status', 'cancelled', '--json']);
    expect(cancelled.json.items.map((job: { name: string }) => job.name)).toContain('tick');
  });

  it('triggers a job now and hands it the SCHED_ variables, env, cwd and payload', async () => {
    const cwd = makeHome('sched-cwd-');
    try {
      await sched(home, [
        'add',
        'env-check',
        '--every',
        '1h',
        '--env',
        'GREETING=hello',
        '--cwd',
        cwd,
        '--payload',
        '{"n":42}',
        '--shell',
        'echo "$GREETING $SCHED_JOB_NAME $SCHED_ATTEMPT $(pwd)"; env | grep -c ^SCHED_; cat',
      ]);
      const triggered = await sched(home, ['trigger', 'env-check', '--json']);
      expect(triggered.json.trigger).toBe('manual');
      const run = await runWhere(home, triggered.json.id, (result) => result.state === 'succeeded');
      const [greeting, count, payload] = run.stdoutTail.trim().split('\n');
      expect(greeting).toBe(`hello env-check 1 ${fs.realpathSync(cwd)}`);
      expect(Number(count)).toBeGreaterThanOrEqual(6);
      expect(JSON.parse(payload!)).toEqual({ n: 42 });
    } finally {
      removeHome(cwd);
    }
  });

  it('kills a job past its timeout together with its children', async () => {
    await sched(home, [
      'add',
      'hang',
      '--every',
      '1h',
      '--timeout',
      '1s',
      '--shell',
      'sleep 60 & echo $!; sleep 60',
    ]);
    const triggered = await sched(home, ['trigger', 'hang', '--json']);
    const run = await runWhere(home, triggered.json.id, (result) => result.state === 'timed_out');
    const grandchild = Number(run.stdoutTail.trim());
    expect(grandchild).toBeGreaterThan(0);
    await waitFor(async () => !isAlive(grandchild), 5_000);
    const history = await sched(home, ['history', 'hang', '--status', 'timed_out', '--json']);
    expect(history.json.items.map((item: { id: string }) => item.id)).toEqual([triggered.json.id]);
  });

  it('records a failing command with its exit code and stderr', async () => {
    await sched(home, ['add', 'broken', '--every', '1h', '--shell', 'echo oops >&2; exit 3']);
    const triggered = await sched(home, ['trigger', 'broken', '--json']);
    const run = await runWhere(home, triggered.json.id, (result) => result.state === 'failed');
    expect(run.exitCode).toBe(3);
    expect(run.stderrTail).toBe('oops\n');
  });

  it('fires a one-shot at job at its instant and then has no next run', async () => {
    const { at, added } = await addOneShotSoon(home, 'once');
    expect(added.json.nextRunAt).toBe(at);
    const run = await waitFor(async () => (await runsOf(home, 'once'))[0], 30_000);
    expect(run.scheduledFor).toBe(at);
    expect(run.createdAt).toBeGreaterThanOrEqual(at);
    const shown = await sched(home, ['show', 'once', '--json']);
    expect(shown.json.job.nextRunAt).toBeNull();
  });

  it('keeps the database in SCHED_HOME', () => {
    expect(fs.existsSync(path.join(home, 'sched.db'))).toBe(true);
  });
});
