import { afterEach, describe, expect, it } from 'vitest';
import { sched, sleep, useDaemons, waitFor } from '../support/sched-harness.js';
import { overlaps } from '../support/run-overlaps.js';

interface RunRow {
  id: string;
  jobName: string;
  scheduledFor: number;
  attempt: number;
  trigger: string;
  state: string;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  error: string | null;
  dueAt: number;
}

interface Entry {
  scheduledFor: number;
  outcome: string;
  reason: string;
  node: string;
  runIds: string[];
  finalState: string | null;
  wall?: string | null;
}

async function runsOf(home: string, job: string): Promise<RunRow[]> {
  const result = await sched(home, ['history', job, '--limit', '500', '--json']);
  return ((result.json?.items ?? []) as RunRow[]).slice().reverse();
}

async function ledgerOf(home: string, job: string): Promise<Entry[]> {
  const result = await sched(home, ['history', job, '--all-occurrences', '--limit', '500', '--json']);
  expect(result.code, result.stderr).toBe(0);
  return ((result.json?.items ?? []) as Entry[]).slice().reverse();
}

async function add(home: string, args: string[]): Promise<void> {
  const result = await sched(home, ['add', ...args]);
  expect(result.code, result.stderr).toBe(0);
}

async function why(home: string, job: string, at?: number): Promise<string> {
  const args = ['why', job, ...(at === undefined ? [] : ['--at', new Date(at).toISOString()])];
  const result = await sched(home, args);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim();
}

// Concurrency, misfire, pause and spread behaviours over time are tested in virtual time in
// test/daemon/virtual-*.test.ts; these keep the real CLI, daemon and processes in the loop.
describe('time policies through the real CLI and daemon', () => {
  const { home, start } = useDaemons(afterEach);

  it('applies forbid to a job that runs longer than its period: no overlap, skipped instants say why', async () => {
    const dir = home();
    await start(dir);
    await add(dir, ['forbid', '--every', '1s', '--concurrency', 'forbid', '--shell', 'sleep 2.5']);
    await waitFor(async () => {
      const ledger = await ledgerOf(dir, 'forbid');
      return ledger.filter((entry) => entry.outcome === 'skipped-overlap').length >= 2;
    }, 30_000);
    await sched(dir, ['pause', 'forbid']);

    expect(overlaps(await runsOf(dir, 'forbid'))).toBe(0);
    const skipped = (await ledgerOf(dir, 'forbid')).filter((entry) => entry.outcome === 'skipped-overlap');
    expect(skipped[0]!.reason).toMatch(/still running \(--concurrency forbid\)/);
    const sentence = await why(dir, 'forbid', skipped[0]!.scheduledFor);
    expect(sentence).toMatch(
      /^forbid was due at .* and was skipped because run \S+ was still running \(--concurrency forbid\)/,
    );
  }, 60_000);

  it('backfills a range: a dry run lists, a real one runs each instant once, in order, and refuses huge ranges', async () => {
    const dir = home();
    await start(dir);
    await add(dir, ['report', '--cron', '*/5 * * * *', '--tz', 'UTC', '--', 'true']);
    const to = Math.floor(Date.now() / 300_000) * 300_000 - 300_000;
    const from = to - 55 * 60_000;
    const range = ['--from', new Date(from).toISOString(), '--to', new Date(to).toISOString()];

    const dry = await sched(dir, ['backfill', 'report', ...range, '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.json.instants).toHaveLength(12);
    expect(dry.json.instants.every((instant: { action: string }) => instant.action === 'run')).toBe(true);
    expect(await runsOf(dir, 'report')).toHaveLength(0);

    const real = await sched(dir, ['backfill', 'report', ...range, '--json']);
    expect(real.code, real.stderr).toBe(0);
    expect(real.json.created).toBe(12);
    expect(real.json.order).toBe('serial');
    const runs = await waitFor(async () => {
      const all = await runsOf(dir, 'report');
      return all.length === 12 && all.every((run) => run.state === 'succeeded') ? all : null;
    }, 30_000);
    expect(runs.every((run) => run.trigger === 'backfill')).toBe(true);
    expect(overlaps(runs)).toBe(0);
    const byStart = [...runs].sort((a, b) => a.startedAt! - b.startedAt!).map((run) => run.scheduledFor);
    expect(byStart).toEqual([...byStart].sort((a, b) => a - b));

    const again = await sched(dir, ['backfill', 'report', ...range, '--json']);
    expect(again.json.created).toBe(0);
    expect(again.json.instants.every((instant: { action: string }) => instant.action === 'exists')).toBe(
      true,
    );

    await add(dir, ['tick', '--cron', '* * * * * *', '--', 'true']);
    const hours = [
      '--from',
      new Date(Date.now() - 3 * 3_600_000).toISOString(),
      '--to',
      new Date(Date.now() - 60_000).toISOString(),
    ];
    const huge = await sched(dir, ['backfill', 'tick', ...hours, '--dry-run']);
    expect(huge.code).toBe(2);
    expect(huge.stderr).toMatch(/more than 10,000/);
    expect(huge.stderr).toMatch(/--max/);
    const allowed = await sched(dir, ['backfill', 'tick', ...hours, '--dry-run', '--max', '20000', '--json']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.json.instants.length).toBeGreaterThan(10_000);
  }, 60_000);

  it('records DST-skipped and repeated wall times of a backfill and why names them', async () => {
    const dir = home();
    await start(dir);
    await add(dir, [
      'gap',
      '--cron',
      '30 2 * * *',
      '--tz',
      'America/New_York',
      '--dst-gap',
      'skip',
      '--',
      'true',
    ]);
    await add(dir, [
      'fold',
      '--cron',
      '30 1 * * *',
      '--tz',
      'America/New_York',
      '--dst-repeat',
      'first',
      '--',
      'true',
    ]);
    const spring = ['--from', '2026-03-07T00:00:00Z', '--to', '2026-03-10T00:00:00Z'];
    const fall = ['--from', '2026-10-31T00:00:00Z', '--to', '2026-11-03T00:00:00Z'];
    const gap = await sched(dir, ['backfill', 'gap', ...spring, '--json']);
    expect(gap.code, gap.stderr).toBe(0);
    expect(gap.json.instants.map((instant: { action: string }) => instant.action)).toEqual([
      'run',
      'dst-skipped',
      'run',
    ]);
    const fold = await sched(dir, ['backfill', 'fold', ...fall, '--json']);
    expect(fold.json.instants.map((instant: { action: string }) => instant.action)).toEqual([
      'run',
      'run',
      'deduplicated',
      'run',
    ]);
    const skippedAt = gap.json.instants[1].scheduledFor;
    expect(await why(dir, 'gap', skippedAt)).toMatch(
      /did not run: that wall time does not exist \(the clocks jumped from 02:00 to 03:00\) and the job is set to --dst-gap skip/,
    );
    const secondAt = fold.json.instants[2].scheduledFor;
    expect(await why(dir, 'fold', secondAt)).toMatch(
      /the second 01:30 .* --dst-repeat first, so only the first ran/,
    );
  }, 60_000);

  it('runs a chain A -> B -> C, a failure hook and a fan-in, and refuses a cycle', async () => {
    const dir = home();
    await start(dir);
    const envFile = `${dir}/upstream`;
    await add(dir, ['a', '--every', '24h', '--', 'true']);
    await add(dir, ['b', '--after', 'a', '--shell', `echo "$SCHED_UPSTREAM_RUN" > ${envFile}`]);
    await add(dir, ['c', '--after', 'b:success', '--', 'true']);
    await add(dir, ['on-a-failure', '--after', 'a:failure', '--', 'true']);
    await add(dir, ['broken', '--every', '24h', '--', 'false']);
    await add(dir, ['alert', '--after', 'broken:failure', '--', 'true']);
    await add(dir, ['f', '--every', '24h', '--', 'true']);
    await add(dir, ['join', '--after-all', 'a', '--after-all', 'f', '--', 'true']);

    await sched(dir, ['trigger', 'a']);
    const c = await waitFor(async () => {
      const runs = await runsOf(dir, 'c');
      return runs.length === 1 && runs[0]!.state === 'succeeded' ? runs : null;
    }, 20_000);
    expect(c[0]!.trigger).toBe('dependency');
    const a = await runsOf(dir, 'a');
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(envFile, 'utf8').trim()).toBe(a[0]!.id);
    expect(await runsOf(dir, 'on-a-failure')).toHaveLength(0);
    expect(await runsOf(dir, 'join')).toHaveLength(0);

    await sched(dir, ['trigger', 'broken']);
    await waitFor(async () => (await runsOf(dir, 'alert')).some((run) => run.state === 'succeeded'), 20_000);

    await sched(dir, ['trigger', 'f']);
    await waitFor(async () => (await runsOf(dir, 'join')).some((run) => run.state === 'succeeded'), 20_000);
    await sleep(500);
    expect(await runsOf(dir, 'join')).toHaveLength(1);

    const before = await sched(dir, ['show', 'a', '--json']);
    const cycle = await sched(dir, ['update', 'a', '--after', 'c']);
    expect(cycle.code).toBe(2);
    expect(cycle.stderr).toMatch(/cycle: a -> c -> b -> a/);
    const after = await sched(dir, ['show', 'a', '--json']);
    expect(after.json.job.version).toBe(before.json.job.version);
    expect(after.json.job.after).toEqual([]);
  }, 60_000);
});
