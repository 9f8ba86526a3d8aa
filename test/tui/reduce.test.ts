import { describe, expect, it } from 'vitest';
import { mainPanes } from '../../src/tui/layout.js';
import { initialState, reduce } from '../../src/tui/state/reduce.js';
import { jobCounts, runsPerMinute, visibleJobIds } from '../../src/tui/state/selectors.js';
import { HISTORY_LIMIT } from '../../src/tui/state/types.js';
import { apply, event, loaded, makeJob, makeRun, manyJobs, NOW, SIZE_80x24, snapshot } from './fixtures.js';

const alpha = makeJob({ name: 'alpha' });
const beta = makeJob({ name: 'beta', labels: { team: 'ops' } });
const gamma = makeJob({ name: 'gamma' });

describe('reduce: snapshots', () => {
  it('given a snapshot, when it arrives, then jobs are listed by name, the first is selected and the dashboard is live', () => {
    const state = loaded([gamma, alpha, beta]);
    expect(state.order).toEqual(['job-alpha', 'job-beta', 'job-gamma']);
    expect(state.selectedJobId).toBe('job-alpha');
    expect(state.connection).toEqual({ kind: 'live' });
  });

  it('given cancelled jobs in a snapshot, when it arrives, then they are left out', () => {
    const state = loaded([alpha, makeJob({ name: 'gone', state: 'cancelled' })]);
    expect([...state.jobs.keys()]).toEqual(['job-alpha']);
  });

  it('given the latest runs in a snapshot, when it arrives, then each job has its history newest first and runs per minute count', () => {
    const old = makeRun(alpha, { finishedAt: NOW - 120_000 });
    const recent = makeRun(alpha, { finishedAt: NOW - 5_000, state: 'failed', exitCode: 1 });
    const state = loaded([alpha], { recent: [recent, old] });
    expect(state.history.get('job-alpha')?.map((run) => run.id)).toEqual([recent.id, old.id]);
    expect(runsPerMinute(state)).toBe(1);
    expect(jobCounts(state)).toMatchObject({ total: 1, active: 1, failing: 1 });
  });

  it('given a selected job, when a new snapshot arrives after a reconnect, then the selection stays on it', () => {
    const state = reduce(loaded([alpha, beta, gamma]), { type: 'move', delta: 1 });
    const next = reduce(state, { type: 'snapshot', snapshot: snapshot([alpha, beta, gamma]), now: NOW });
    expect(next.selectedJobId).toBe('job-beta');
  });

  it('given a run that was running before a reconnect, when the new snapshot no longer lists it, then it is not shown as running', () => {
    const running = makeRun(alpha, { state: 'running', finishedAt: null, exitCode: null });
    const before = loaded([alpha], { running: [running], recent: [running] });
    const after = reduce(before, { type: 'snapshot', snapshot: snapshot([alpha]), now: NOW });
    expect(after.running.size).toBe(0);
    expect(after.history.get('job-alpha') ?? []).toEqual([]);
  });
});

describe('reduce: job events', () => {
  it('given a job created, when the event arrives, then it slots into the order without moving the selected row', () => {
    const state = reduce(loaded([alpha, gamma]), { type: 'move', delta: 1 });
    const next = apply(state, event('job:created', beta));
    expect(next.order).toEqual(['job-alpha', 'job-beta', 'job-gamma']);
    expect(next.selectedJobId).toBe('job-gamma');
  });

  it('given the selected row on screen, when jobs are added above it, then it keeps its place on screen', () => {
    const jobs = manyJobs(100);
    let state = reduce(loaded(jobs), { type: 'move', delta: 40 });
    const screenRow = visibleJobIds(state).indexOf(state.selectedJobId!) - state.jobScroll;
    state = apply(
      state,
      event('job:created', makeJob({ name: 'aaa-new' })),
      event('job:created', makeJob({ name: 'aab-new' })),
    );
    expect(visibleJobIds(state).indexOf(state.selectedJobId!) - state.jobScroll).toBe(screenRow);
    expect(state.selectedJobId).toBe('job-job-00040');
  });

  it('given a job updated, when the event arrives, then its row keeps its place even in next-run order', () => {
    let state = reduce(loaded([alpha, beta, gamma]), { type: 'sort-next' });
    expect(state.sort).toBe('next');
    state = apply(state, event('job:updated', { ...alpha, version: 2, nextRunAt: NOW + 99_000_000 }));
    expect(state.order).toEqual(['job-alpha', 'job-beta', 'job-gamma']);
    expect(state.jobs.get('job-alpha')?.nextRunAt).toBe(NOW + 99_000_000);
  });

  it('given a newer version on screen, when an older update arrives late, then it is ignored', () => {
    const state = apply(loaded([alpha]), event('job:updated', { ...alpha, version: 3, state: 'paused' }));
    const next = apply(state, event('job:updated', { ...alpha, version: 2, state: 'active' }));
    expect(next.jobs.get('job-alpha')?.state).toBe('paused');
  });

  it('given the selected job, when it is cancelled, then the row in its place is selected', () => {
    const state = reduce(loaded([alpha, beta, gamma]), { type: 'move', delta: 1 });
    const next = apply(state, event('job:cancelled', { ...beta, state: 'cancelled' }));
    expect(next.order).toEqual(['job-alpha', 'job-gamma']);
    expect(next.selectedJobId).toBe('job-gamma');
  });

  it('given a job paused, when the event arrives, then it counts as paused', () => {
    const next = apply(
      loaded([alpha, beta]),
      event('job:updated', { ...beta, version: 2, state: 'paused', nextRunAt: null }),
    );
    expect(jobCounts(next)).toMatchObject({ active: 1, paused: 1 });
  });
});

describe('reduce: run events', () => {
  it('given a run fired, started and finished, when the events arrive, then the runs pane and the history follow it', () => {
    const fired = makeRun(alpha, {
      state: 'scheduled',
      startedAt: null,
      finishedAt: null,
      exitCode: null,
      pid: null,
    });
    let state = apply(loaded([alpha]), event('run:fired', fired));
    expect(state.history.get('job-alpha')?.[0]?.state).toBe('scheduled');

    state = apply(state, event('run:started', { runId: fired.id, jobId: alpha.id, pid: 77, at: NOW }));
    expect([...state.running.keys()]).toEqual([fired.id]);
    expect(state.selectedRunId).toBe(fired.id);

    state = apply(
      state,
      event('run:finished', {
        ...fired,
        state: 'succeeded',
        startedAt: NOW,
        finishedAt: NOW + 2_000,
        exitCode: 0,
      }),
    );
    expect(state.running.size).toBe(0);
    expect(state.history.get('job-alpha')?.[0]?.state).toBe('succeeded');
    expect(state.focus).toBe('jobs');
    expect(state.finishes.get(fired.id)).toBe(NOW + 2_000);
  });

  it('given a finished run, when a late run:started for it arrives, then it stays finished', () => {
    const run = makeRun(alpha);
    const state = apply(loaded([alpha]), event('run:finished', run));
    const next = apply(state, event('run:started', { runId: run.id, jobId: alpha.id, pid: 1, at: NOW }));
    expect(next.history.get('job-alpha')?.[0]?.state).toBe('succeeded');
    expect(next.running.size).toBe(0);
  });

  it('given a scheduled fire, when run:fired arrives, then the job counts down to its next instant', () => {
    const job = makeJob({
      name: 'tick',
      schedule: { kind: 'every', intervalMs: 5_000, anchorMs: NOW - 5_000 },
      nextRunAt: NOW,
    });
    const fired = makeRun(job, { scheduledFor: NOW, state: 'scheduled' });
    const next = apply(loaded([job]), event('run:fired', fired));
    expect(next.jobs.get(job.id)?.nextRunAt).toBe(NOW + 5_000);
  });

  it('given a run:finished with its output, when it arrives, then the history keeps no output (only the open run view does)', () => {
    const run = makeRun(alpha, { stdoutTail: 'x'.repeat(1000) });
    const next = apply(loaded([alpha]), event('run:finished', run));
    expect(next.history.get('job-alpha')?.[0]).not.toHaveProperty('stdoutTail');
  });

  it('given many runs of one job, when they arrive, then its history keeps the newest ones only', () => {
    const runs = Array.from({ length: HISTORY_LIMIT + 5 }, () => makeRun(alpha));
    const next = apply(loaded([alpha]), ...runs.map((run) => event('run:finished', run)));
    const history = next.history.get('job-alpha')!;
    expect(history).toHaveLength(HISTORY_LIMIT);
    expect(history[0]?.id).toBe(runs.at(-1)?.id);
  });

  it('given finishes over a minute old, when the clock ticks, then they stop counting', () => {
    const state = apply(loaded([alpha]), event('run:finished', makeRun(alpha, { finishedAt: NOW - 1_000 })));
    expect(runsPerMinute(state)).toBe(1);
    const later = reduce(state, { type: 'tick', now: NOW + 60_000 });
    expect(runsPerMinute(later)).toBe(0);
    expect(later.finishes.size).toBe(0);
  });
});

describe('reduce: moving around', () => {
  it('given 1,000 jobs, when moving down past the screen, then the list scrolls just enough', () => {
    const state = loaded(manyJobs(1000));
    const rows = mainPanes(SIZE_80x24, 0).jobRows;
    const next = reduce(state, { type: 'move', delta: rows });
    expect(next.jobScroll).toBe(1);
    expect(reduce(next, { type: 'edge', where: 'bottom' })).toMatchObject({
      selectedJobId: 'job-job-00999',
      jobScroll: 1000 - rows,
    });
    expect(reduce(next, { type: 'page', direction: -1 })).toMatchObject({
      selectedJobId: 'job-job-00001',
      jobScroll: 1,
    });
    expect(reduce(next, { type: 'edge', where: 'top' })).toMatchObject({
      selectedJobId: 'job-job-00000',
      jobScroll: 0,
    });
  });

  it('given a filter typed, when it matches a label, then only matching jobs are visible and one of them is selected', () => {
    let state = reduce(loaded([alpha, beta, gamma]), { type: 'filter-start' });
    for (const text of 'team=o') state = reduce(state, { type: 'filter-type', text });
    expect(visibleJobIds(state)).toEqual(['job-beta']);
    expect(state.selectedJobId).toBe('job-beta');
    state = reduce(state, { type: 'filter-done', keep: false });
    expect(visibleJobIds(state)).toHaveLength(3);
  });

  it('given the sort key, when s is pressed three times, then it goes name, next run, problems, name', () => {
    let state = loaded([alpha]);
    const seen = [];
    for (let i = 0; i < 3; i++) {
      state = reduce(state, { type: 'sort-next' });
      seen.push(state.sort);
    }
    expect(seen).toEqual(['next', 'problems', 'name']);
  });

  it('given problems-first order, when sorted, then a failing job comes before the others', () => {
    const failed = makeRun(gamma, { state: 'failed', exitCode: 2 });
    let state = loaded([alpha, beta, gamma], { recent: [failed] });
    state = reduce(reduce(state, { type: 'sort-next' }), { type: 'sort-next' });
    expect(state.order[0]).toBe('job-gamma');
  });

  it('given a job opened, when Esc is pressed, then the table is back with the same job selected', () => {
    const state = reduce(reduce(loaded([alpha, beta]), { type: 'open-job', jobId: 'job-beta' }), {
      type: 'back',
    });
    expect(state.view).toEqual({ kind: 'main' });
    expect(state.selectedJobId).toBe('job-beta');
  });

  it('given an open job, when its history loads, then its newest run is selected and the job counts as loaded', () => {
    const runs = [makeRun(alpha), makeRun(alpha)].reverse();
    let state = reduce(loaded([alpha]), { type: 'open-job', jobId: 'job-alpha' });
    state = reduce(state, { type: 'history', jobId: 'job-alpha', runs });
    expect(state.view).toMatchObject({ kind: 'job', runId: runs[0]!.id });
    expect(state.historyLoaded.has('job-alpha')).toBe(true);
  });

  it('given the open job, when it is cancelled elsewhere, then the table comes back', () => {
    const state = reduce(loaded([alpha, beta]), { type: 'open-job', jobId: 'job-alpha' });
    expect(apply(state, event('job:cancelled', alpha)).view).toEqual({ kind: 'main' });
  });

  it('given no running run, when Tab is pressed, then the focus stays on the jobs', () => {
    expect(reduce(loaded([alpha]), { type: 'focus-next' }).focus).toBe('jobs');
  });
});

describe('reduce: the run view', () => {
  const running = makeRun(alpha, { state: 'running', finishedAt: null, exitCode: null });

  it('given a run opened while it runs, when output arrives and then the run loads with empty tails, then all the output shows', () => {
    let state = reduce(loaded([alpha], { running: [running] }), { type: 'open-run', runId: running.id });
    state = apply(state, event('run:output', { runId: running.id, stream: 'stdout', data: 'one\n', seq: 1 }));
    state = reduce(state, { type: 'run-loaded', run: running });
    state = apply(state, event('run:output', { runId: running.id, stream: 'stderr', data: 'two\n', seq: 2 }));
    expect(state.output?.live.map((chunk) => chunk.data)).toEqual(['one\n', 'two\n']);
  });

  it('given the daemon keeps a live tail, when the run loads, then chunks it already holds are not shown twice', () => {
    let state = reduce(loaded([alpha], { running: [running] }), { type: 'open-run', runId: running.id });
    state = apply(state, event('run:output', { runId: running.id, stream: 'stdout', data: 'one\n', seq: 3 }));
    state = reduce(state, { type: 'run-loaded', run: { ...running, stdoutTail: 'zero\none\n' } });
    expect(state.output?.base).toEqual([{ stream: 'stdout', data: 'zero\none\n' }]);
    expect(state.output?.live).toEqual([]);
  });

  it('given a run opened while it runs, when the daemon answers with its tail so far, then the view starts with it and shows later chunks once', () => {
    let state = reduce(loaded([alpha], { running: [running] }), { type: 'open-run', runId: running.id });
    state = apply(state, event('run:output', { runId: running.id, stream: 'stdout', data: 'two\n', seq: 2 }));
    state = apply(
      state,
      event('run:output', { runId: running.id, stream: 'stdout', data: 'three\n', seq: 3 }),
    );
    state = reduce(state, {
      type: 'run-loaded',
      run: { ...running, stdoutTail: 'one\ntwo\n', stderrTail: 'warn\n', outputSeq: 2 },
    });
    state = apply(
      state,
      event('run:output', { runId: running.id, stream: 'stderr', data: 'four\n', seq: 4 }),
    );

    expect(state.output?.base).toEqual([
      { stream: 'stdout', data: 'one\ntwo\n' },
      { stream: 'stderr', data: 'warn\n' },
    ]);
    expect(state.output?.live.map((chunk) => chunk.data)).toEqual(['three\n', 'four\n']);
  });

  it('given the run view scrolled up, when Esc is pressed, then the output is dropped and the table is back', () => {
    let state = reduce(loaded([alpha]), { type: 'open-run', runId: running.id });
    state = reduce(state, { type: 'back' });
    expect(state.output).toBeNull();
    expect(state.view.kind).toBe('main');
  });

  it('given a long output, when scrolling up and back to the end, then the view follows the end again', () => {
    const long = {
      ...running,
      state: 'succeeded' as const,
      stdoutTail: Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n'),
    };
    let state = reduce(loaded([alpha]), { type: 'open-run', runId: running.id });
    state = reduce(state, { type: 'run-loaded', run: long });
    state = reduce(state, { type: 'move', delta: -5 });
    expect(state.view).toMatchObject({ kind: 'run', scroll: expect.any(Number) });
    state = reduce(state, { type: 'edge', where: 'bottom' });
    expect(state.view).toMatchObject({ kind: 'run', scroll: null });
  });
});

describe('reduce: the screen', () => {
  it('given a resize to a smaller terminal, when it arrives, then the selected row is still on screen', () => {
    let state = reduce(loaded(manyJobs(100)), { type: 'move', delta: 15 });
    state = reduce(state, { type: 'resize', columns: 60, rows: 12 });
    const index = visibleJobIds(state).indexOf(state.selectedJobId!);
    const rows = mainPanes(state.size, 0).jobRows;
    expect(index).toBeGreaterThanOrEqual(state.jobScroll);
    expect(index).toBeLessThan(state.jobScroll + rows);
  });

  it('given a fresh state, when nothing arrived yet, then it is connecting with no jobs', () => {
    const state = initialState(SIZE_80x24, NOW, 'UTC');
    expect(state.connection.kind).toBe('connecting');
    expect(state.jobs.size).toBe(0);
  });
});

describe('reduce: the top of the list', () => {
  it('given the list at its top, when a job is added above the selection, then it comes into view and the selection moves down a row', () => {
    const jobs = manyJobs(100);
    const state = reduce(loaded(jobs), { type: 'move', delta: 3 });
    const next = apply(state, event('job:created', makeJob({ name: 'aaa-new' })));
    expect(next.jobScroll).toBe(0);
    expect(visibleJobIds(next)[0]).toBe('job-aaa-new');
    expect(next.selectedJobId).toBe('job-job-00003');
  });
});

describe('reduce: a run view opened mid-run', () => {
  it('given output printed before the view opened, when the run ends, then the view shows all that was kept', () => {
    const alpha = makeJob({ name: 'alpha' });
    const running = makeRun(alpha, { state: 'running', finishedAt: null, exitCode: null });
    let state = reduce(loaded([alpha], { running: [running] }), { type: 'open-run', runId: running.id });
    state = reduce(state, { type: 'run-loaded', run: running });
    state = apply(
      state,
      event('run:output', { runId: running.id, stream: 'stdout', data: 'late\n', seq: 4 }),
    );
    state = apply(
      state,
      event('run:finished', {
        ...running,
        state: 'succeeded',
        finishedAt: NOW,
        exitCode: 0,
        stdoutTail: 'early\nlate\n',
      }),
    );
    expect(state.output?.base).toEqual([{ stream: 'stdout', data: 'early\nlate\n' }]);
    expect(state.output?.live).toEqual([]);
  });

  it('given all output came live, when the run ends, then the view stays as it is', () => {
    const alpha = makeJob({ name: 'alpha' });
    const running = makeRun(alpha, { state: 'running', finishedAt: null, exitCode: null });
    let state = reduce(loaded([alpha], { running: [running] }), { type: 'open-run', runId: running.id });
    state = reduce(state, { type: 'run-loaded', run: running });
    state = apply(state, event('run:output', { runId: running.id, stream: 'stdout', data: 'all\n', seq: 5 }));
    state = apply(
      state,
      event('run:finished', {
        ...running,
        state: 'succeeded',
        finishedAt: NOW,
        exitCode: 0,
        stdoutTail: 'all\n',
      }),
    );
    expect(state.output?.live).toEqual([{ stream: 'stdout', data: 'all\n', seq: 5 }]);
  });
});
