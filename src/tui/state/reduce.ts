import type { ScreenSize } from '../layout.js';
import { applyEvents, applyRuns, applySnapshot, pruneFinishes, tailChunks } from './apply-events.js';
import { comparatorFor, sortedIds } from './job-order.js';
import { move, pageSize, settle } from './navigation.js';
import { SORT_MODES, type Action, type DashState, type RunOutput } from './types.js';

export function initialState(size: ScreenSize, now: number, zone: string): DashState {
  return {
    now,
    zone,
    size,
    connection: { kind: 'connecting' },
    daemon: null,
    cluster: { status: null, readAt: now, unavailable: null },
    jobs: new Map(),
    order: [],
    sort: 'name',
    filter: '',
    editingFilter: false,
    history: new Map(),
    historyLoaded: new Set(),
    running: new Map(),
    finishes: new Map(),
    focus: 'jobs',
    selectedJobId: null,
    jobScroll: 0,
    selectedRunId: null,
    view: { kind: 'main' },
    output: null,
    help: false,
    confirm: null,
    flash: null,
  };
}

/** The dashboard's one state transition. Pure: time arrives inside actions. */
export function reduce(state: DashState, action: Action): DashState {
  switch (action.type) {
    case 'tick':
      return { ...state, now: action.now, finishes: pruneFinishes(state.finishes, action.now) };
    case 'resize':
      return settle(state, { ...state, size: { columns: action.columns, rows: action.rows } });
    case 'connection':
      return { ...state, connection: action.connection, now: action.now };
    case 'snapshot':
      return settle(state, applySnapshot(state, action.snapshot, action.now));
    case 'events':
      return action.events.length === 0
        ? state
        : settle(state, applyEvents(state, action.events, action.now));
    case 'history': {
      const next = applyRuns(state, action.runs);
      return settle(state, { ...next, historyLoaded: new Set(state.historyLoaded).add(action.jobId) });
    }
    case 'run-loaded':
      if (state.output?.runId !== action.run.id) return state;
      return settle(state, { ...state, output: withLoadedRun(state.output, action.run) });
    case 'run-failed':
      if (state.output?.runId !== action.runId) return state;
      return { ...state, output: { ...state.output, error: action.error } };
    case 'cluster-status':
      return settle(state, {
        ...state,
        now: action.now,
        cluster: { status: action.status, readAt: action.now, unavailable: null },
      });
    case 'cluster-unavailable':
      return { ...state, cluster: { ...state.cluster, unavailable: action.reason } };
    case 'flash':
      return { ...state, flash: { text: action.text, tone: action.tone, at: action.now } };
    case 'move':
      return move(state, action.delta);
    case 'page':
      return move(state, action.direction * pageSize(state));
    case 'edge':
      return move(state, action.where === 'top' ? -Infinity : Infinity);
    case 'open-job':
      if (!state.jobs.has(action.jobId)) return state;
      return settle(state, {
        ...state,
        view: { kind: 'job', jobId: action.jobId, runId: null, scroll: 0 },
        selectedJobId: action.jobId,
      });
    case 'open-run':
      return {
        ...state,
        view: {
          kind: 'run',
          runId: action.runId,
          scroll: null,
          back: state.view.kind === 'job' ? 'job' : 'main',
        },
        output: { runId: action.runId, run: null, base: [], live: [], error: null },
      };
    case 'open-cluster':
      return { ...state, view: { kind: 'cluster', scroll: 0 } };
    case 'back':
      return back(state);
    case 'focus-next':
      if (state.view.kind !== 'main' || state.running.size === 0) return state;
      return { ...state, focus: state.focus === 'jobs' ? 'runs' : 'jobs' };
    case 'sort-next': {
      const sort = SORT_MODES[(SORT_MODES.indexOf(state.sort) + 1) % SORT_MODES.length]!;
      return settle(state, {
        ...state,
        sort,
        order: sortedIds(state.jobs, comparatorFor(sort, state.history)),
      });
    }
    case 'filter-start':
      return { ...state, editingFilter: true, view: { kind: 'main' }, focus: 'jobs' };
    case 'filter-type':
      return settle(state, { ...state, filter: state.filter + action.text });
    case 'filter-erase':
      return settle(state, { ...state, filter: [...state.filter].slice(0, -1).join('') });
    case 'filter-done':
      return settle(state, { ...state, editingFilter: false, filter: action.keep ? state.filter : '' });
    case 'help':
      return { ...state, help: action.show };
    case 'confirm-cancel':
      return { ...state, confirm: { jobId: action.jobId, name: action.name } };
    case 'confirm-dismiss':
      return { ...state, confirm: null };
  }
}

function back(state: DashState): DashState {
  if (state.help) return { ...state, help: false };
  if (state.confirm) return { ...state, confirm: null };
  const view = state.view;
  if (view.kind === 'run') {
    const job = view.back === 'job' ? (state.output?.run?.jobId ?? state.selectedJobId) : null;
    const next: DashState = { ...state, output: null, view: { kind: 'main' } };
    if (job && state.jobs.has(job)) next.view = { kind: 'job', jobId: job, runId: view.runId, scroll: 0 };
    return settle(state, next);
  }
  if (view.kind === 'job' || view.kind === 'cluster') return { ...state, view: { kind: 'main' } };
  if (state.filter !== '') return settle(state, { ...state, filter: '' });
  return state;
}

/**
 * The daemon's answer to `run.get`. Live chunks that came before it on the same connection are already in
 * its tails, unless the daemon keeps no tail while a run runs (then the tail is empty and they are not).
 */
/**
 * The view starts with the tail the daemon kept so far; chunks that came live before it answered stay
 * only when numbered after the tail (a daemon without numbers: only on a stream whose tail is empty).
 */
function withLoadedRun(output: RunOutput, run: NonNullable<RunOutput['run']>): RunOutput {
  const base = tailChunks(run);
  const { outputSeq } = run;
  const live = output.live.filter((chunk) =>
    outputSeq !== undefined && chunk.seq !== undefined
      ? chunk.seq > outputSeq
      : chunk.stream === 'stdout'
        ? !run.stdoutTail
        : !run.stderrTail,
  );
  return { ...output, run, base, live, error: null };
}
