import chalk from 'chalk';
import { afterEach, describe, expect, it } from 'vitest';
import { reduce } from '../../src/tui/state/reduce.js';
import type { Action, DashState } from '../../src/tui/state/types.js';
import { apply, event, loaded, makeJob, makeRun, manyJobs, NOW } from './fixtures.js';
import { rawScreenOf, screenOf } from './render.js';

const nightly = makeJob({
  name: 'nightly-backup',
  schedule: { kind: 'cron', expression: '0 0 3 * * *' },
  timezone: 'Europe/Berlin',
  labels: { team: 'ops' },
  nextRunAt: NOW + 5 * 3_600_000 + 2 * 60_000,
  target: { kind: 'command', argv: ['./backup.sh', '--full'], shell: null, cwd: null, env: {} },
  retry: { maxRetries: 3, initialBackoffMs: 10_000, factor: 2, maxBackoffMs: 600_000, jitter: true },
});
const report = makeJob({
  name: 'report',
  schedule: { kind: 'cron', expression: '0 0 9 * * 1-5' },
  timezone: 'America/New_York',
  nextRunAt: NOW + 42_000,
});
const sync = makeJob({ name: 'sync', state: 'paused', nextRunAt: null, labels: { team: 'data' } });
const tick = makeJob({
  name: 'tick',
  schedule: { kind: 'every', intervalMs: 30_000, anchorMs: NOW },
  nextRunAt: NOW + 9_000,
});

const syncRuns = [
  makeRun(sync),
  makeRun(sync, { state: 'failed', exitCode: 2 }),
  makeRun(sync),
  makeRun(sync, { state: 'failed', exitCode: 1, finishedAt: NOW - 30_000 }),
].reverse();
const reportRun = makeRun(report, { finishedAt: NOW - 55_000 });
const tickRunning = makeRun(tick, {
  state: 'running',
  startedAt: NOW - 12_000,
  finishedAt: null,
  exitCode: null,
  pid: 5150,
});

function dashboard(...actions: Action[]): DashState {
  const state = loaded([nightly, report, sync, tick], {
    recent: [tickRunning, reportRun, ...syncRuns],
    running: [tickRunning],
  });
  return actions.reduce(reduce, state);
}

afterEach(() => {
  chalk.level = 0;
});

describe('the main view', () => {
  it('given jobs, runs and a running run, when drawn at 80x24, then it shows header, table, runs pane and keys in 23 lines', () => {
    const screen = screenOf(dashboard());
    expect(screen.split('\n')).toHaveLength(23);
    expect(screen).toMatchInlineSnapshot(`
      "sched daemon pid 4100 · node build-01 · up 3h 2m · sqlite:/home/alice… ● live
      4 jobs: 3 active, 1 paused · 1 running · 5 runs/min · ✗ 1 failing
      › JOBS 4 · sort: name
        NAME             SCHEDULE                           NEXT LAST      RUNS
      › nightly-backup   at 03:00 every day (Europe/…   in 5h 2m -
        report           at 09:00 on weekdays (Ameri…     in 42s ✓ 5s      ▇
        sync             every 1h                       ‖ paused ✗ 30s     ▇▁▇▁
        tick             every 30s                         in 9s ● 12s     ▒












        RUNNING NOW (1)
        ● tick                      #1         12s  pid 5150  run run-000006
      ↑↓ move  ⏎ open  / filter  t trigger  p pause  x kill  n nodes  ? help  q quit"
    `);
  });

  it('given 10,000 jobs, when drawn, then only the rows on screen are rendered and the position is shown', () => {
    const state = loaded(manyJobs(10_000));
    // This process's own CPU time, not wall time: on a loaded machine it may wait long for a core, which
    // says nothing about how much work drawing took.
    const started = process.cpuUsage();
    const screen = screenOf(reduce(state, { type: 'move', delta: 5_000 }));
    const cpu = process.cpuUsage(started);
    expect((cpu.user + cpu.system) / 1_000).toBeLessThan(1_000);
    expect(screen.split('\n')).toHaveLength(23);
    expect(screen).toContain('10,000 jobs: 10,000 active, 0 paused');
    expect(screen).toContain('JOBS 4,986–5,001 of 10,000 · sort: name');
    expect(screen).toContain('› job-05000');
    expect(screen).not.toContain('job-04984');
    expect(screen.match(/job-\d{5}/g)).toHaveLength(16);
  });

  it('given no jobs, when drawn, then it says how to add one', () => {
    expect(screenOf(loaded([]))).toContain('No jobs yet. Add one with `sched add`.');
  });

  it('given a filter that matches nothing, when drawn, then it says so and how to clear it', () => {
    const screen = screenOf(dashboard({ type: 'filter-start' }, { type: 'filter-type', text: 'zzz' }));
    expect(screen).toContain('No job matches “zzz”. Esc clears the filter.');
    expect(screen).toContain('/ zzz▏  Enter keeps the filter, Esc clears it');
  });

  it('given a label filter, when drawn, then only matching jobs are listed and the header says so', () => {
    const screen = screenOf(
      dashboard(
        { type: 'filter-start' },
        { type: 'filter-type', text: 'team=ops' },
        { type: 'filter-done', keep: true },
      ),
    );
    expect(screen).toContain('nightly-backup');
    expect(screen).not.toContain('report');
    expect(screen).toContain('JOBS 1 · sort: name · filter: team=ops');
  });

  it('given the connection lost, when drawn, then the header says reconnecting with the reason, and the last data stays', () => {
    const screen = screenOf(
      dashboard({
        type: 'connection',
        connection: {
          kind: 'reconnecting',
          attempt: 2,
          reason: 'daemon not running (ECONNREFUSED)',
          retryAt: NOW + 2_000,
        },
        now: NOW,
      }),
    );
    expect(screen).toContain('◌ reconnecting… daemon not running (ECONNREFUSED); try 2 in 2s');
    expect(screen).toContain('nightly-backup');
  });

  it('given c pressed on a job, when drawn, then the footer asks before cancelling', () => {
    const screen = screenOf(dashboard({ type: 'confirm-cancel', jobId: nightly.id, name: nightly.name }));
    expect(screen.split('\n').at(-1)).toMatch(
      /^Cancel job nightly-backup for good\? It stops firing; its history stays\./,
    );
  });

  it('given an action failed, when drawn within 5 seconds, then the footer says so; after that the keys come back', () => {
    const failed = dashboard({
      type: 'flash',
      text: 'Could not pause sync: it is paused',
      tone: 'error',
      now: NOW,
    });
    expect(screenOf(failed).split('\n').at(-1)).toBe('Could not pause sync: it is paused');
    expect(
      screenOf(reduce(failed, { type: 'tick', now: NOW + 6_000 }))
        .split('\n')
        .at(-1),
    ).toMatch(/^↑↓ move/);
  });

  it('given the focus on the runs pane, when drawn, then the running run is marked as selected', () => {
    const screen = screenOf(dashboard({ type: 'focus-next' }));
    expect(screen).toContain('› RUNNING NOW (1)');
    expect(screen).toContain('  JOBS 4');
    expect(screen).toMatch(/› ● tick\s+#1\s+12s\s+pid 5150/);
  });

  it('given sort by next run, when drawn, then the soonest comes first', () => {
    const lines = screenOf(dashboard({ type: 'sort-next' })).split('\n');
    expect(lines.slice(4, 8).map((line) => line.slice(2).split(' ')[0])).toEqual([
      'tick',
      'report',
      'nightly-backup',
      'sync',
    ]);
    expect(lines[2]).toContain('JOBS 4 · sort: next run');
  });

  it('given a 50x12 terminal, when drawn, then it still fits; smaller, then it says what it needs', () => {
    const small = screenOf(dashboard({ type: 'resize', columns: 50, rows: 12 }));
    expect(small.split('\n')).toHaveLength(11);
    expect(Math.max(...small.split('\n').map((line) => [...line].length))).toBeLessThanOrEqual(49);
    expect(screenOf(dashboard({ type: 'resize', columns: 40, rows: 10 }))).toBe(
      'sched dash needs at least 50×12; this terminal is 40×10.',
    );
  });

  it('given a wide terminal, when drawn, then labels get a column', () => {
    expect(screenOf(dashboard({ type: 'resize', columns: 140, rows: 30 }))).toMatch(/LABELS[\s\S]*team=ops/);
  });
});

describe('the job view', () => {
  it('given a job opened, when drawn, then its fields and runs show, newest first, the newest selected', () => {
    const state = dashboard(
      { type: 'move', delta: 2 },
      { type: 'open-job', jobId: sync.id },
      { type: 'history', jobId: sync.id, runs: syncRuns },
    );
    const screen = screenOf(state);
    expect(screen).toContain('‹ sync ‖ paused');
    expect(screen).toMatch(/Schedule\s+every 1h {2}--every 1h/);
    expect(screen).toMatch(/Command\s+true/);
    expect(screen).toContain('RUNS (4)');
    expect(screen).toMatch(
      /› 2026-06-01 09:59:00 UTC #1\s+✗ failed\s+exit 1\s+30s\n {2}2026-06-01 09:59:00 UTC #1\s+✓ succeeded/,
    );
    expect(screen.split('\n')).toHaveLength(23);
  });

  it('given a cron job opened, when drawn, then the schedule is in words with its zone and next run', () => {
    const screen = screenOf(
      dashboard({ type: 'open-job', jobId: nightly.id }, { type: 'history', jobId: nightly.id, runs: [] }),
    );
    expect(screen).toMatch(/Schedule\s+at 03:00 every day \(Europe\/Berlin\) {2}--cron '0 0 3 \* \* \*'/);
    expect(screen).toMatch(/Next run\s+2026-06-01 15:02:00 UTC \(in 5h 2m\)/);
    expect(screen).toMatch(/Retries\s+3 retries, backoff 10s ×2 up to 10m, full jitter · timeout none/);
    expect(screen).toContain('no runs yet');
  });
});

describe('the run view', () => {
  const finished = makeRun(report, {
    stdoutTail: Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n') + '\n',
    stderrTail: 'warning: disk 91% full\n',
  });

  it('given a finished run opened, when drawn, then the end of its output shows, stderr marked', () => {
    const state = dashboard({ type: 'open-run', runId: finished.id }, { type: 'run-loaded', run: finished });
    const screen = screenOf(state);
    expect(screen).toContain(`‹ ✓ succeeded report · run ${finished.id} · attempt 1 · exit 0 · 2s`);
    expect(screen).toContain('▌ warning: disk 91% full');
    expect(screen).toContain('  line 40');
    expect(screen).not.toContain('line 1\n');
    expect(screen.split('\n').at(-1)).toMatch(/^↑↓ scroll/);
  });

  it('given the output scrolled to the top, when drawn, then the first lines show', () => {
    const state = dashboard(
      { type: 'open-run', runId: finished.id },
      { type: 'run-loaded', run: finished },
      { type: 'edge', where: 'top' },
    );
    expect(screenOf(state)).toMatch(/ {2}line 1\n {2}line 2\n/);
  });

  it('given a running run, when live output arrives, then it shows as it comes', () => {
    let state = dashboard(
      { type: 'open-run', runId: tickRunning.id },
      { type: 'run-loaded', run: tickRunning },
    );
    expect(screenOf(state)).toContain('(no output yet)');
    state = apply(
      state,
      event('run:output', { runId: tickRunning.id, stream: 'stdout', data: 'step 1\nstep 2', seq: 1 }),
    );
    state = apply(
      state,
      event('run:output', { runId: tickRunning.id, stream: 'stdout', data: ' done\n', seq: 2 }),
    );
    expect(screenOf(state)).toContain('  step 1\n  step 2 done');
  });

  it('given a run that cannot be read, when drawn, then it says why', () => {
    const state = dashboard(
      { type: 'open-run', runId: 'nope' },
      { type: 'run-failed', runId: 'nope', error: 'No run with id nope.' },
    );
    expect(screenOf(state)).toContain('Could not read the run: No run with id nope.');
  });
});

describe('help and colour', () => {
  it('given ? pressed, when drawn, then every key is listed', () => {
    const screen = screenOf(dashboard({ type: 'help', show: true }));
    for (const key of ['Enter', 'Esc', '/', 's', 't', 'p', 'x', 'c', 'n', '?', 'q'])
      expect(screen).toMatch(new RegExp(`^ {2}${key.replace('?', '\\?')}\\s`, 'm'));
  });

  it('given colour on, when drawn, then states are coloured; given NO_COLOR, then no colour code is written but glyphs remain', () => {
    chalk.level = 1;
    const COLOUR = new RegExp(String.raw`\u001b\[3[0-7]m`);
    expect(rawScreenOf(dashboard(), { colour: true })).toMatch(COLOUR);
    const plainScreen = rawScreenOf(dashboard(), { colour: false });
    expect(plainScreen).not.toMatch(COLOUR);
    expect(plainScreen).toContain('‖ paused');
    expect(plainScreen).toContain('✗ 30s');
  });
});
