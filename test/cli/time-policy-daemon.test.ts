import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sched, useDaemons, waitFor } from '../support/sched-harness.js';

const NY = ['--tz', 'America/New_York'];

describe('time-policy flags through the real CLI and daemon', () => {
  const daemons = useDaemons(afterAll);
  let dir: string;
  beforeAll(async () => {
    dir = daemons.home();
    await daemons.start(dir);
  });

  it('given every time-policy flag on add, when shown, then each setting is printed with its flag', async () => {
    const added = await sched(dir, [
      'add',
      'report',
      '--cron',
      '30 2 * * *',
      ...NY,
      '--concurrency',
      'queue',
      '--misfire',
      'count:3',
      '--catchup-window',
      '2h',
      '--skip-if-next-within',
      '10m',
      '--dst-gap',
      'skip',
      '--dst-repeat',
      'both',
      '--spread',
      '5m',
      '--jitter',
      '30s',
      '--',
      'true',
    ]);
    expect(added.code).toBe(0);
    const shown = await sched(dir, ['show', 'report']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^Overlap: +.*\(--concurrency queue\)$/m);
    expect(shown.stdout).toMatch(
      /^Missed runs: +the newest 3 run, oldest first, if at most 2h late; none when the next run is due within 10m +\(--misfire count:3 --catchup-window 2h --skip-if-next-within 10m\)$/m,
    );
    expect(shown.stdout).toMatch(/^DST: +.*\(--dst-gap skip --dst-repeat both\)$/m);
    expect(shown.stdout).toMatch(
      /^Spread: +starts \S+ after each instant, a fixed offset within 5m +\(--spread 5m\)$/m,
    );
    expect(shown.stdout).toMatch(/^Jitter: +.*up to 30s +\(--jitter 30s\)$/m);
  });

  it('given every time-policy flag on add, when shown as JSON, then the stored policy holds the parsed values', async () => {
    const shown = await sched(dir, ['show', 'report', '--json']);
    expect(shown.json.job.policy).toEqual({
      concurrency: 'queue',
      misfire: {
        policy: { kind: 'count', count: 3 },
        catchupWindowMs: 7_200_000,
        skipIfNextWithinMs: 600_000,
      },
      dst: { gap: 'skip', repeat: 'both' },
      spreadMs: 300_000,
      jitterMs: 30_000,
    });
  });

  it('given a job on the default policy, when shown, then a single line says so', async () => {
    expect((await sched(dir, ['add', 'plain', '--every', '1h', '--', 'true'])).code).toBe(0);
    const shown = await sched(dir, ['show', 'plain']);
    expect(shown.stdout).toMatch(/^Time policy: +defaults$/m);
    expect(shown.stdout).not.toMatch(/^(Overlap|Missed runs|DST|Spread|Jitter):/m);
  });

  it.each([
    [['--concurrency', 'sometimes'], /^Error: Invalid --concurrency "sometimes"\./],
    [['--misfire', 'once'], /^Error: Invalid --misfire "once"\.\nHint: "once" is called latest/],
    [['--misfire', 'count:0'], /^Error: Invalid --misfire "count:0"/],
    [['--catchup-window', 'soon'], /^Error: .*"soon"/],
    [['--skip-if-next-within', 'nearly'], /^Error: .*"nearly"/],
    [['--dst-gap', 'later'], /^Error: Invalid --dst-gap "later"\./],
    [['--dst-repeat', 'twice'], /^Error: Invalid --dst-repeat "twice"\./],
    [['--spread', 'wide'], /^Error: .*"wide"/],
    [['--jitter', 'forever'], /^Error: .*"forever"/],
    [['--after', 'plain:failed'], /^Error: Invalid --after "plain:failed": "failed" is not an outcome\./],
    [['--after-all', 'plain'], /^Error: --after-all needs at least two upstream jobs\./],
  ])(
    'given %j, when added, then it exits 2 with a clear error and stores nothing',
    async (flags, message) => {
      const result = await sched(dir, ['add', 'broken', '--every', '1h', ...flags, '--', 'true']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/\bat .+:\d+:\d+/);
      expect((await sched(dir, ['show', 'broken'])).code).toBe(3);
    },
  );

  it('given --after naming no job, when added, then it exits 3 naming the missing job and stores nothing', async () => {
    const result = await sched(dir, ['add', 'broken', '--after', 'nosuchjob', '--', 'true']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^Error: .*"nosuchjob"/);
    expect((await sched(dir, ['show', 'broken'])).code).toBe(3);
  });

  it('given the retired --no-jitter, when added, then it exits 2 naming --no-backoff-jitter and stores nothing', async () => {
    const result = await sched(dir, ['add', 'broken', '--every', '1h', '--no-jitter', '--', 'true']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^Error: --no-jitter is now --no-backoff-jitter\./);
    expect((await sched(dir, ['show', 'broken'])).code).toBe(3);
  });

  it('given neither a schedule nor --after, when added, then the daemon refuses it with exit 2', async () => {
    const result = await sched(dir, ['add', 'nothing', '--', 'true']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^Error: Job "nothing" has no schedule\./);
    expect((await sched(dir, ['show', 'nothing'])).code).toBe(3);
  });

  it('given only --after and --after-all, when added and shown, then it has no schedule and names its upstreams', async () => {
    const added = await sched(dir, [
      'add',
      'publish',
      '--after',
      'report:failure',
      '--after-all',
      'report',
      '--after-all',
      'plain',
      '--json',
      '--',
      'true',
    ]);
    expect(added.code).toBe(0);
    expect(added.json.schedule).toEqual({ kind: 'none' });
    const shown = await sched(dir, ['show', 'publish']);
    expect(shown.stdout).toMatch(/^Schedule: +none of its own: runs after other jobs, or when triggered$/m);
    expect(shown.stdout).toMatch(/^Runs after: +report fails$/m);
    expect(shown.stdout).toMatch(
      /^Runs after all: +report and plain have each succeeded since its last run$/m,
    );
    const json = (await sched(dir, ['show', 'publish', '--json'])).json;
    expect(json.upstreams.map((upstream: { name: string }) => upstream.name)).toEqual(['report', 'plain']);
  });

  it('given --clear-spread and --clear-jitter, when updated, then show prints neither any more', async () => {
    const updated = await sched(dir, ['update', 'report', '--clear-spread', '--clear-jitter', '--json']);
    expect(updated.code).toBe(0);
    expect(updated.json.policy).toMatchObject({ spreadMs: null, jitterMs: null, concurrency: 'queue' });
    const shown = await sched(dir, ['show', 'report']);
    expect(shown.stdout).not.toMatch(/^(Spread|Jitter):/m);
  });

  it('given a job with no schedule, when --clear-after and --clear-after-all would leave it nothing, then it is refused', async () => {
    const result = await sched(dir, ['update', 'publish', '--clear-after', '--clear-after-all']);
    expect(result.code).toBe(2);
    const job = (await sched(dir, ['show', 'publish', '--json'])).json.job;
    expect(job.after).toHaveLength(1);
    expect(job.afterAll).toHaveLength(2);
  });

  it('given a job with a spread and a jitter, when its next runs are listed, then each shows its planned start and the jitter', async () => {
    expect((await sched(dir, ['update', 'plain', '--spread', '10m', '--jitter', '30s'])).code).toBe(0);
    const json = (await sched(dir, ['next', 'plain', '-n', '2', '--json'])).json;
    expect(json.job.name).toBe('plain');
    expect(json.spreadOffsetMs).toBeGreaterThanOrEqual(0);
    expect(json.spreadOffsetMs).toBeLessThan(600_000);
    for (const instant of json.instants)
      expect(instant.start.epochMs - instant.epochMs).toBe(json.spreadOffsetMs);
    const text = await sched(dir, ['next', 'plain', '-n', '2']);
    expect(text.stdout.trim().split('\n')).toHaveLength(2);
    for (const line of text.stdout.trim().split('\n'))
      expect(line).toMatch(/ starts \d\d:\d\d:\d\d \(\+\S+ spread\) \+ up to 30s jitter$/);
  });
});

describe('why, history --all-occurrences and backfill through the real CLI and daemon', () => {
  const daemons = useDaemons(afterAll);
  let dir: string;
  beforeAll(async () => {
    dir = daemons.home();
    await daemons.start(dir);
    const added = await sched(dir, [
      'add',
      'nightly',
      '--cron',
      '30 2 * * *',
      ...NY,
      '--dst-gap',
      'skip',
      '--',
      'true',
    ]);
    expect(added.code).toBe(0);
  });

  // 2025-03-09 is the New York spring-forward: 02:30 does not exist that day.
  const RANGE = ['--from', '2025-03-08 00:00', '--to', '2025-03-11 00:00'];

  it('given a range across the spring-forward, when dry-run, then it lists each instant and runs nothing', async () => {
    const dry = await sched(dir, ['backfill', 'nightly', ...RANGE, '--dry-run', '--json']);
    expect(dry.code).toBe(0);
    expect(dry.json.dryRun).toBe(true);
    expect(dry.json.created).toBe(0);
    expect(
      dry.json.instants.map((instant: { wall: string; action: string }) => [
        instant.wall.slice(0, 16),
        instant.action,
      ]),
    ).toEqual([
      ['2025-03-08T02:30', 'run'],
      ['2025-03-09T02:30', 'dst-skipped'],
      ['2025-03-10T02:30', 'run'],
    ]);
    const text = await sched(dir, ['backfill', 'nightly', ...RANGE, '--dry-run']);
    expect(text.stdout).toMatch(
      /^Dry run: nightly was due 3 times from .*; 2 would run, one after another, oldest first \(--concurrency forbid\)\./,
    );
    expect(text.stdout).toMatch(
      /^2025-03-09 02:30:00 \(no such time\) .*not run: no such wall time .*--dst-gap skip/m,
    );
    expect((await sched(dir, ['history', 'nightly', '--json'])).json.items).toEqual([]);
  });

  it('given the same range for real, when backfilled, then it reports two runs made, run one after another', async () => {
    const real = await sched(dir, ['backfill', 'nightly', ...RANGE]);
    expect(real.code).toBe(0);
    expect(real.stdout).toMatch(
      /^Created 2 runs of nightly for 3 instants from .*; they run one after another, oldest first \(--concurrency forbid\)\./,
    );
    await waitFor(async () => {
      const runs = (await sched(dir, ['history', 'nightly', '--json'])).json.items;
      return runs.length === 2 && runs.every((run: { state: string }) => run.state === 'succeeded');
    });
  });

  it('given a backfilled job, when its occurrences are listed, then they come newest first in the job zone', async () => {
    const json = (await sched(dir, ['history', 'nightly', '--all-occurrences', '--json'])).json;
    const ran = json.items.filter((entry: { outcome: string }) => entry.outcome === 'ran');
    expect(ran.map((entry: { scheduledFor: number }) => new Date(entry.scheduledFor).toISOString())).toEqual([
      '2025-03-10T06:30:00.000Z',
      '2025-03-08T07:30:00.000Z',
    ]);
    const times = json.items.map((entry: { scheduledFor: number }) => entry.scheduledFor);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const text = await sched(dir, ['history', 'nightly', '--all-occurrences']);
    expect(text.stdout).toMatch(/^DUE \(America\/New_York\) +OUTCOME +RUNS +WHY$/m);
    expect(text.stdout).toMatch(/^2025-03-10 02:30:00 EDT +ran +\S+ succeeded /m);
  });

  it('given --limit 1, when occurrences are listed, then a More line gives the cursor to the next page', async () => {
    const first = await sched(dir, ['history', 'nightly', '--all-occurrences', '--limit', '1', '--json']);
    expect(first.json.items).toHaveLength(1);
    expect(first.json.nextCursor).not.toBeNull();
    const second = await sched(dir, [
      'history',
      'nightly',
      '--all-occurrences',
      '--limit',
      '1',
      '--cursor',
      first.json.nextCursor,
      '--json',
    ]);
    expect(second.json.items[0].scheduledFor).toBeLessThan(first.json.items[0].scheduledFor);
    const text = await sched(dir, ['history', 'nightly', '--all-occurrences', '--limit', '1']);
    expect(text.stdout).toMatch(/^More: sched history nightly --all-occurrences --cursor \S+$/m);
  });

  it('given a wall time in the job zone, when asked why, then the sentence is about that instant', async () => {
    const why = await sched(dir, ['why', 'nightly', '--at', '2025-03-10 02:30']);
    expect(why.code).toBe(0);
    expect(why.stdout).toMatch(/^nightly was due at 2025-03-10 02:30 America\/New_York and ran/);
    const json = (await sched(dir, ['why', 'nightly', '--at', '2025-03-10T06:30:00Z', '--json'])).json;
    expect(json.sentence).toBe(why.stdout.trim());
    expect(json.entry.scheduledFor).toBe(Date.parse('2025-03-10T06:30:00Z'));
  });

  it('given more than 10,000 instants, when backfilled, then it exits 2 with a hint naming --max and creates nothing', async () => {
    expect((await sched(dir, ['add', 'minutely', '--cron', '* * * * *', '--', 'true'])).code).toBe(0);
    const result = await sched(dir, [
      'backfill',
      'minutely',
      '--from',
      '2025-01-01T00:00Z',
      '--to',
      '2025-02-01T00:00Z',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/\nHint: .*--max/);
    // The job may fire its real minute while the test runs; only backfilled runs would be the bug.
    const runs = (await sched(dir, ['history', 'minutely', '--json'])).json.items as { trigger: string }[];
    expect(runs.filter((run) => run.trigger !== 'schedule')).toEqual([]);
  });
});

describe('export and import json round-trip time policies and dependencies', () => {
  const daemons = useDaemons(afterEach);

  it('given jobs with policies and dependencies, when exported and imported elsewhere, then the other host has the same definitions', async () => {
    const [source, target] = [daemons.home(), daemons.home()];
    await Promise.all([daemons.start(source), daemons.start(target)]);
    const adds = [
      [
        'add',
        'backup',
        '--cron',
        '0 3 * * *',
        ...NY,
        '--concurrency',
        'replace',
        '--misfire',
        'all',
        '--dst-repeat',
        'last',
        '--spread',
        '90s',
        '--',
        'true',
      ],
      ['add', 'lint', '--every', '1h', '--jitter', '20s', '--skip-if-next-within', '5m', '--', 'true'],
      [
        'add',
        'publish',
        '--after',
        'backup:always',
        '--after-all',
        'backup',
        '--after-all',
        'lint',
        '--',
        'true',
      ],
    ];
    for (const args of adds) expect((await sched(source, args)).code).toBe(0);

    const file = path.join(source, 'jobs.json');
    expect((await sched(source, ['export', '-o', file])).code).toBe(0);
    const document = JSON.parse(fs.readFileSync(file, 'utf8'));
    const publish = document.jobs.find((job: { name: string }) => job.name === 'publish');
    expect(publish).toMatchObject({
      schedule: { kind: 'none' },
      after: [{ job: 'backup', on: 'always' }],
      afterAll: ['backup', 'lint'],
    });
    // Upstream jobs listed last, so the import must create them first.
    document.jobs.reverse();
    fs.writeFileSync(file, JSON.stringify(document));

    const imported = await sched(target, ['import', 'json', file, '--yes', '--json']);
    expect(imported.code).toBe(0);
    expect(imported.json.jobs.map((job: { outcome: string }) => job.outcome)).toEqual([
      'created',
      'created',
      'created',
    ]);
    const byName = (jobs: { name: string }[]) => [...jobs].sort((a, b) => a.name.localeCompare(b.name));
    const before = byName(JSON.parse(fs.readFileSync(file, 'utf8')).jobs);
    const after = byName((await sched(target, ['export', '--json'])).json.jobs);
    expect(after).toEqual(before);

    const again = await sched(target, ['import', 'json', file, '--yes', '--json']);
    expect(again.json.jobs.map((job: { action: string }) => job.action)).toEqual([
      'unchanged',
      'unchanged',
      'unchanged',
    ]);
  });
});

describe('sched daemon run --max-concurrent', () => {
  const daemons = useDaemons(afterEach);

  it('given --max-concurrent 1, when two jobs are triggered together, then their runs do not overlap', async () => {
    const dir = daemons.home();
    await daemons.start(dir, ['--max-concurrent', '1']);
    for (const name of ['first', 'second']) {
      expect((await sched(dir, ['add', name, '--every', '1h', '--shell', 'sleep 1'])).code).toBe(0);
    }
    await Promise.all([sched(dir, ['trigger', 'first']), sched(dir, ['trigger', 'second'])]);
    const runs = await waitFor(async () => {
      const items = (await sched(dir, ['history', '--json'])).json.items;
      return items.length === 2 && items.every((run: { state: string }) => run.state === 'succeeded')
        ? items
        : null;
    }, 30_000);
    const [a, b] = [...runs].sort(
      (x: { startedAt: number }, y: { startedAt: number }) => x.startedAt - y.startedAt,
    );
    expect(b.startedAt).toBeGreaterThanOrEqual(a.finishedAt);
  });
});
