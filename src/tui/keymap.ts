import type { Key } from 'ink';
import { runningRunOf, runningRuns, visibleJobIds } from './state/selectors.js';
import type { Action, DashState, Effect } from './state/types.js';

/** What a key press means: state changes, requests to the daemon, or the end. */
export interface KeyOutcome {
  actions: Action[];
  effects: Effect[];
  quit: boolean;
}

const nothing = (): KeyOutcome => ({ actions: [], effects: [], quit: false });
const act = (...actions: Action[]): KeyOutcome => ({ actions, effects: [], quit: false });

/** The keys, for the help screen and the footer: one table, so they cannot disagree with `interpretKey`. */
export const KEY_HELP: readonly (readonly [string, string])[] = [
  ['↑ ↓  j k', 'move; PgUp PgDn and g G jump'],
  ['Enter', 'open: a job’s detail and history, a run’s output'],
  ['Esc', 'back; clears the filter'],
  ['Tab', 'between the jobs and the running runs'],
  ['/', 'filter by name or label (key=value)'],
  ['s', 'sort: by name, next run, problems first'],
  ['t', 'trigger the job now'],
  ['p', 'pause or resume the job'],
  ['x', 'kill the selected running run'],
  ['c', 'cancel the job (asks first)'],
  ['n', 'the cluster’s nodes, coordinator and shards; n again returns'],
  ['?', 'this help'],
  ['q', 'quit'],
];

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

/**
 * Ink hands over everything read at once as one input, as for a paste. Keys typed (or sent by tmux)
 * faster than the dashboard reads arrive together, as `jt` or `\t\r`; they are taken apart again, so
 * each counts. Escape sequences (arrows, PgUp) come separately from Ink already.
 */
export function splitKeys(input: string, key: Key): [string, Key][] {
  const chars = [...input];
  if (chars.length <= 1 || input.startsWith('\u001B')) return [[input, key]];
  return chars.map((char): [string, Key] => {
    if (char === '\r' || char === '\n') return ['', { ...NO_KEY, return: true }];
    if (char === '\t') return ['', { ...NO_KEY, tab: true }];
    if (char === '\u007F' || char === '\b') return ['', { ...NO_KEY, backspace: true }];
    const code = char.codePointAt(0)!;
    if (code < 32) return [String.fromCharCode(code + 96), { ...NO_KEY, ctrl: true }];
    return [char, NO_KEY];
  });
}

/** Pure: the same state and key always mean the same thing, so keys are tested without a terminal. */
export function interpretKey(state: DashState, input: string, key: Key): KeyOutcome {
  if (key.ctrl && input === 'c') return { ...nothing(), quit: true };
  if (state.confirm) return confirmKey(state, input);
  if (state.editingFilter) return filterKey(input, key);
  if (state.help) {
    if (input === 'q') return { ...nothing(), quit: true };
    return act({ type: 'help', show: false });
  }

  const moved = movement(input, key);
  if (moved) return act(moved);
  if (key.escape) return act({ type: 'back' });
  if (key.return) return open(state);
  if (key.tab) return act({ type: 'focus-next' });

  switch (input) {
    case 'q':
      return { ...nothing(), quit: true };
    case '?':
      return act({ type: 'help', show: true });
    case '/':
      return act({ type: 'filter-start' });
    case 's':
      return state.view.kind === 'main' ? act({ type: 'sort-next' }) : nothing();
    case 't':
    case 'p':
    case 'c':
      return jobKey(state, input);
    case 'x':
      return kill(state);
    case 'n':
      return act(state.view.kind === 'cluster' ? { type: 'back' } : { type: 'open-cluster' });
    default:
      return nothing();
  }
}

function movement(input: string, key: Key): Action | null {
  if (key.upArrow || input === 'k') return { type: 'move', delta: -1 };
  if (key.downArrow || input === 'j') return { type: 'move', delta: 1 };
  if (key.pageUp || (key.ctrl && input === 'u')) return { type: 'page', direction: -1 };
  if (key.pageDown || (key.ctrl && input === 'd') || input === ' ') return { type: 'page', direction: 1 };
  if (key.home || input === 'g') return { type: 'edge', where: 'top' };
  if (key.end || input === 'G') return { type: 'edge', where: 'bottom' };
  return null;
}

function confirmKey(state: DashState, input: string): KeyOutcome {
  const confirm = state.confirm!;
  if (input === 'y' || input === 'Y')
    return {
      actions: [{ type: 'confirm-dismiss' }],
      effects: [{ kind: 'cancel', jobId: confirm.jobId, name: confirm.name }],
      quit: false,
    };
  return act({ type: 'confirm-dismiss' });
}

function filterKey(input: string, key: Key): KeyOutcome {
  if (key.return) return act({ type: 'filter-done', keep: true });
  if (key.escape) return act({ type: 'filter-done', keep: false });
  if (key.backspace || key.delete) return act({ type: 'filter-erase' });
  if (key.upArrow) return act({ type: 'move', delta: -1 });
  if (key.downArrow) return act({ type: 'move', delta: 1 });
  if (key.ctrl || key.meta || input === '' || input.charCodeAt(0) < 32) return nothing();
  return act({ type: 'filter-type', text: input });
}

/** The job the keys t, p and c act on: the one whose detail is open, else the selected row. */
function focusedJobId(state: DashState): string | null {
  if (state.view.kind === 'job') return state.view.jobId;
  if (state.view.kind === 'main' && state.focus === 'jobs') return state.selectedJobId;
  return null;
}

function jobKey(state: DashState, input: 't' | 'p' | 'c'): KeyOutcome {
  const jobId = focusedJobId(state);
  const job = jobId === null ? undefined : state.jobs.get(jobId);
  if (!job) return nothing();
  const { id, name } = job;
  if (input === 'c') return act({ type: 'confirm-cancel', jobId: id, name });
  const kind = input === 't' ? 'trigger' : job.state === 'paused' ? 'resume' : 'pause';
  return { actions: [], effects: [{ kind, jobId: id, name }], quit: false };
}

function kill(state: DashState): KeyOutcome {
  const view = state.view;
  let runId: string | null = null;
  // The cluster view shows no runs: x there must not reach a run of the job selected behind it.
  if (view.kind === 'cluster') runId = null;
  else if (view.kind === 'run') runId = state.running.has(view.runId) ? view.runId : null;
  else if (view.kind === 'job') {
    const selected = state.history.get(view.jobId)?.find((run) => run.id === view.runId);
    runId = selected?.state === 'running' ? selected.id : (runningRunOf(state, view.jobId)?.id ?? null);
  } else if (state.focus === 'runs') runId = state.selectedRunId;
  else if (state.selectedJobId !== null) runId = runningRunOf(state, state.selectedJobId)?.id ?? null;
  const run = runId === null ? undefined : (state.running.get(runId) ?? findRun(state, runId));
  if (!run)
    return act({ type: 'flash', text: 'Nothing running to kill here.', tone: 'info', now: state.now });
  return { actions: [], effects: [{ kind: 'kill', runId: run.id, jobName: run.jobName }], quit: false };
}

function findRun(state: DashState, runId: string) {
  for (const runs of state.history.values()) {
    const run = runs.find((candidate) => candidate.id === runId);
    if (run) return run;
  }
  return undefined;
}

function open(state: DashState): KeyOutcome {
  const view = state.view;
  if (view.kind === 'job') {
    if (view.runId === null) return nothing();
    return {
      actions: [{ type: 'open-run', runId: view.runId }],
      effects: [{ kind: 'load-run', runId: view.runId }],
      quit: false,
    };
  }
  if (view.kind === 'run' || view.kind === 'cluster') return nothing();
  if (state.focus === 'runs') {
    const run = runningRuns(state).find((candidate) => candidate.id === state.selectedRunId);
    if (!run) return nothing();
    return {
      actions: [{ type: 'open-run', runId: run.id }],
      effects: [{ kind: 'load-run', runId: run.id }],
      quit: false,
    };
  }
  const jobId = state.selectedJobId;
  if (jobId === null || !visibleJobIds(state).includes(jobId)) return nothing();
  return act({ type: 'open-job', jobId });
}
