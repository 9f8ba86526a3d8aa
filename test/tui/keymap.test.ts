import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { interpretKey, splitKeys } from '../../src/tui/keymap.js';
import { reduce } from '../../src/tui/state/reduce.js';
import type { Action, DashState } from '../../src/tui/state/types.js';
import { loaded, makeJob, makeRun } from './fixtures.js';

const key = (overrides: Partial<Key> = {}): Key => ({ ...splitKeys('ab', {} as Key)[0]![1], ...overrides });
const press = (state: DashState, input: string, overrides: Partial<Key> = {}) =>
  interpretKey(state, input, key(overrides));
const after = (state: DashState, ...actions: Action[]) => actions.reduce(reduce, state);

const alpha = makeJob({ name: 'alpha' });
const paused = makeJob({ name: 'beta', state: 'paused', nextRunAt: null });
const running = makeRun(alpha, { state: 'running', finishedAt: null, exitCode: null });

describe('keys on the jobs table', () => {
  const state = loaded([alpha, paused], { running: [running], recent: [running] });

  it('given the table, when q is pressed, then the dashboard quits', () => {
    expect(press(state, 'q').quit).toBe(true);
  });

  it('given the table, when Ctrl-C is pressed, then the dashboard quits', () => {
    expect(press(state, 'c', { ctrl: true }).quit).toBe(true);
  });

  it('given the table, when j, k, arrows, PgDn, g and G are pressed, then they move the selection', () => {
    expect(press(state, 'j').actions).toEqual([{ type: 'move', delta: 1 }]);
    expect(press(state, '', { upArrow: true }).actions).toEqual([{ type: 'move', delta: -1 }]);
    expect(press(state, '', { pageDown: true }).actions).toEqual([{ type: 'page', direction: 1 }]);
    expect(press(state, 'G').actions).toEqual([{ type: 'edge', where: 'bottom' }]);
  });

  it('given an active job selected, when t and p are pressed, then it is triggered and paused', () => {
    expect(press(state, 't').effects).toEqual([{ kind: 'trigger', jobId: alpha.id, name: 'alpha' }]);
    expect(press(state, 'p').effects).toEqual([{ kind: 'pause', jobId: alpha.id, name: 'alpha' }]);
  });

  it('given a paused job selected, when p is pressed, then it is resumed', () => {
    const onBeta = after(state, { type: 'move', delta: 1 });
    expect(press(onBeta, 'p').effects).toEqual([{ kind: 'resume', jobId: paused.id, name: 'beta' }]);
  });

  it('given a job selected, when c is pressed, then nothing is cancelled until y confirms it', () => {
    const asked = press(state, 'c');
    expect(asked.effects).toEqual([]);
    const confirming = after(state, ...asked.actions);
    expect(press(confirming, 'n')).toEqual({
      actions: [{ type: 'confirm-dismiss' }],
      effects: [],
      quit: false,
    });
    expect(press(confirming, 'y').effects).toEqual([{ kind: 'cancel', jobId: alpha.id, name: 'alpha' }]);
  });

  it('given a job with a running run selected, when x is pressed, then that run is killed', () => {
    expect(press(state, 'x').effects).toEqual([{ kind: 'kill', runId: running.id, jobName: 'alpha' }]);
  });

  it('given a job with nothing running, when x is pressed, then it says so and kills nothing', () => {
    const outcome = press(after(state, { type: 'move', delta: 1 }), 'x');
    expect(outcome.effects).toEqual([]);
    expect(outcome.actions[0]).toMatchObject({ type: 'flash', text: 'Nothing running to kill here.' });
  });

  it('given the runs pane focused, when Enter is pressed, then the run opens and its output is read', () => {
    const focused = after(state, ...press(state, '', { tab: true }).actions);
    expect(press(focused, '', { return: true })).toEqual({
      actions: [{ type: 'open-run', runId: running.id }],
      effects: [{ kind: 'load-run', runId: running.id }],
      quit: false,
    });
  });

  it('given the table, when Enter is pressed, then the selected job opens', () => {
    expect(press(state, '', { return: true }).actions).toEqual([{ type: 'open-job', jobId: alpha.id }]);
  });

  it('given the table, when / and text are typed, then q is text, not quit, until Enter', () => {
    const filtering = after(state, ...press(state, '/').actions);
    expect(press(filtering, 'q')).toEqual({
      actions: [{ type: 'filter-type', text: 'q' }],
      effects: [],
      quit: false,
    });
    expect(press(filtering, '', { backspace: true }).actions).toEqual([{ type: 'filter-erase' }]);
    expect(press(filtering, '', { return: true }).actions).toEqual([{ type: 'filter-done', keep: true }]);
    expect(press(filtering, '', { escape: true }).actions).toEqual([{ type: 'filter-done', keep: false }]);
  });

  it('given the help, when any key but q is pressed, then the help closes', () => {
    const helping = after(state, ...press(state, '?').actions);
    expect(press(helping, 'j').actions).toEqual([{ type: 'help', show: false }]);
    expect(press(helping, 'q').quit).toBe(true);
  });
});

describe('keys in the job view', () => {
  const state = after(loaded([alpha], { recent: [running] }), { type: 'open-job', jobId: alpha.id });

  it('given a job open, when Enter is pressed, then its selected run opens', () => {
    expect(press(state, '', { return: true }).effects).toEqual([{ kind: 'load-run', runId: running.id }]);
  });

  it('given a job open, when t is pressed, then that job is triggered', () => {
    expect(press(state, 't').effects).toEqual([{ kind: 'trigger', jobId: alpha.id, name: 'alpha' }]);
  });

  it('given a job open, when s is pressed, then nothing happens (sorting is for the table)', () => {
    expect(press(state, 's').actions).toEqual([]);
  });
});

describe('splitKeys', () => {
  it('given keys that arrived together, when split, then each is a key of its own', () => {
    const keys = splitKeys('jt\t\r', key());
    expect(keys.map(([input]) => input)).toEqual(['j', 't', '', '']);
    expect(keys[2]![1].tab).toBe(true);
    expect(keys[3]![1].return).toBe(true);
  });

  it('given one key or an escape sequence, when split, then it is left whole', () => {
    const arrow = key({ upArrow: true });
    expect(splitKeys('\u001B[A', arrow)).toEqual([['\u001B[A', arrow]]);
    expect(splitKeys('j', arrow)).toEqual([['j', arrow]]);
  });
});
