import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sched, sleep, useDaemons, waitFor } from '../support/sched-harness.js';

// Waiting retries, queued instants and --now are driven in virtual time in
// test/daemon/virtual-run-actions.test.ts; these go through the real CLI, daemon and processes.
describe('acting on runs through the real CLI and daemon', () => {
  const { home, start } = useDaemons(afterEach);
  const runsOf = async (dir: string, job: string, ...flags: string[]) =>
    ((await sched(dir, ['history', job, '--limit', '100', ...flags, '--json'])).json?.items ?? [])
      .slice()
      .reverse();
  /** Triggers the job and waits until that run has ended in `state`. */
  const triggered = async (dir: string, job: string, state: string): Promise<{ id: string }> => {
    const run = (await sched(dir, ['trigger', job, '--json'])).json;
    await waitFor(
      async () =>
        (await runsOf(dir, job)).find((each: { id: string }) => each.id === run.id)?.state === state,
    );
    return run;
  };
  const auditOf = async (dir: string, job: string) =>
    ((await sched(dir, ['audit', job, '--json'])).json?.items ?? []).map(
      (entry: { action: string }) => entry.action,
    );

  it('given an every-second job added with --paused, when 3 s pass, then it has not run, and once resumed it runs', async () => {
    const dir = home();
    await start(dir);

    const added = await sched(dir, [
      'add',
      'tick',
      '--cron',
      '* * * * * *',
      '--paused',
      '--json',
      '--',
      'true',
    ]);
    await sleep(3_000);

    expect(added.code).toBe(0);
    expect(added.json).toMatchObject({ name: 'tick', state: 'paused', nextRunAt: null });
    expect(await runsOf(dir, 'tick')).toEqual([]);
    expect(await auditOf(dir, 'tick')).toEqual(['job.create']);
    expect((await sched(dir, ['resume', 'tick'])).code).toBe(0);
    await waitFor(async () => (await runsOf(dir, 'tick')).length > 0);
  });

  it('given an export that lists an every-second job as paused, when imported, then the job is created paused and never runs', async () => {
    const dir = home();
    await start(dir);
    // Exported while quiet (a yearly job, paused), then made an every-second job in the file.
    await sched(dir, ['add', 'probe', '--cron', '0 0 1 1 *', '--', 'true']);
    await sched(dir, ['pause', 'probe']);
    const document = (await sched(dir, ['export', '--json'])).json;
    await sched(dir, ['cancel', 'probe']);
    document.jobs[0].schedule.expression = '* * * * * *';
    expect(document.paused).toEqual(['probe']);

    const imported = await sched(dir, ['import', 'json', '-', '--yes', '--json'], {
      input: JSON.stringify(document),
    });
    await sleep(2_000);

    expect(imported.code).toBe(0);
    expect((await sched(dir, ['show', 'probe', '--json'])).json.job).toMatchObject({ state: 'paused' });
    expect(await runsOf(dir, 'probe')).toEqual([]);
    // Created paused, not paused after: there was never a moment for it to fire in.
    expect(await auditOf(dir, 'probe')).toEqual(['job.create']);
  });

  it('given runs started a second apart, when history is filtered by --since and --until, then only the runs started in the range are listed', async () => {
    const dir = home();
    await start(dir);
    await sched(dir, ['add', 'job', '--every', '1d', '--', 'true']);
    const first = await triggered(dir, 'job', 'succeeded');
    await sleep(1_100);
    const between = new Date(Date.now() - 500).toISOString();
    const second = await triggered(dir, 'job', 'succeeded');

    const ids = async (...flags: string[]) =>
      (await runsOf(dir, 'job', ...flags)).map((run: { id: string }) => run.id);
    expect(await ids('--since', between)).toEqual([second.id]);
    expect(await ids('--until', between)).toEqual([first.id]);
    expect(await ids('--since', '1h')).toEqual([first.id, second.id]);
    expect(await ids('--since', '1h', '--until', '30m')).toEqual([]);
    const text = await sched(dir, ['history', 'job', '--since', '1h', '--until', '30m']);
    expect(text.stdout).toContain('No runs in that time.');
  });

  it('given dead runs, when redriven with --dry-run, then for real, then again, then it lists them, adds one attempt each, and then skips them, saying so', async () => {
    const dir = home();
    const fixed = path.join(dir, 'fixed');
    await start(dir);
    await sched(dir, ['add', 'sync', '--every', '1d', '--shell', `test -e ${fixed}`]);
    for (let i = 0; i < 2; i += 1) await triggered(dir, 'sync', 'failed');

    const dry = await sched(dir, ['retry', '--job', 'sync', '--since', '1h', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('Would redrive 2 dead runs of sync');
    expect(dry.stdout).toContain('Nothing was changed');
    expect(await runsOf(dir, 'sync')).toHaveLength(2);

    fs.writeFileSync(fixed, '');
    const done = await sched(dir, ['retry', '--job', 'sync', '--since', '1h', '--json']);
    expect(done.code).toBe(0);
    expect(done.json.redriven).toHaveLength(2);
    await waitFor(async () => (await runsOf(dir, 'sync', '--status', 'succeeded')).length === 2);

    const again = await sched(dir, ['retry', '--job', 'sync', '--since', '1h']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No dead runs of sync');
    expect(again.stdout).toContain('Skipped 2 runs that a later attempt already follows');
    expect(await runsOf(dir, 'sync')).toHaveLength(4);
  });

  it('given bad times and flag mixes, when history and retry are asked, then each exits 2 with what was wrong and nothing changes', async () => {
    const dir = home();
    await start(dir);
    await sched(dir, ['add', 'sync', '--every', '1d', '--shell', 'exit 1']);
    const run = await triggered(dir, 'sync', 'failed');
    const before = { runs: await runsOf(dir, 'sync'), audit: await auditOf(dir, 'sync') };

    const cases: [string[], RegExp][] = [
      [
        ['history', '--since', 'yesterday'],
        /Invalid --since "yesterday": it is neither a time nor a duration/,
      ],
      [['history', 'sync', '--until', '2026-13-01'], /Invalid --until "2026-13-01"/],
      [['history', '--since', '1h', '--until', '2h'], /--until is before --since/],
      [['retry', '--job', 'sync', '--since', 'soon'], /Invalid --since "soon"/],
      [['retry', '--job', 'sync', '--since', '1h', '--until', '2h'], /--until is before --since/],
      [['retry', run.id, '--since', '1h'], /--since goes with --job/],
      [['retry', run.id, '--job', 'sync', '--since', '1h'], /Give a run or --job, not both/],
      [['retry'], /Name the run to retry, or a job to redrive with --job/],
    ];
    for (const [args, message] of cases) {
      const result = await sched(dir, args);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    const json = await sched(dir, ['history', '--since', 'yesterday', '--json']);
    expect(json.json.error).toMatchObject({ code: 'VALIDATION_FAILED' });

    expect({ runs: await runsOf(dir, 'sync'), audit: await auditOf(dir, 'sync') }).toEqual(before);
  });
});
