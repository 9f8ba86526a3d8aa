import { clusterRows, historyRows, mainPanes, outputRows } from '../layout.js';
import { outputLines, runningRuns, visibleJobIds } from './selectors.js';
import type { DashState } from './types.js';

/** The smallest scroll that shows row `index` of `length` in a window of `rows`. */
export function keepInView(index: number, scroll: number, rows: number, length: number): number {
  const maxScroll = Math.max(0, length - rows);
  let top = Math.min(Math.max(scroll, 0), maxScroll);
  if (index < top) top = index;
  else if (index >= top + rows) top = index - rows + 1;
  return Math.max(0, Math.min(top, maxScroll));
}

/**
 * After the data or the screen changed: the selected job stays selected and, once the list is scrolled,
 * where it was on screen, so jobs added above it do not push it away; if it went (cancelled, filtered
 * out), the row now in its place is selected. The runs pane and the job, run and cluster views are kept consistent the same way.
 */
export function settle(prev: DashState, next: DashState): DashState {
  return settleView(settleRuns(prev, settleJobs(prev, next)));
}

function settleJobs(prev: DashState, next: DashState): DashState {
  const visible = visibleJobIds(next);
  const rows = mainPanes(next.size, next.running.size).jobRows;
  const prevVisible = visibleJobIds(prev);
  const prevIndex = prev.selectedJobId === null ? -1 : prevVisible.indexOf(prev.selectedJobId);
  let selectedJobId = next.selectedJobId;
  let index = selectedJobId === null ? -1 : visible.indexOf(selectedJobId);
  if (index === -1) {
    index = visible.length === 0 ? -1 : Math.min(Math.max(prevIndex, 0), visible.length - 1);
    selectedJobId = visible[index] ?? null;
  }
  // At the top of the list, new jobs above the selection come into view (the selection moves down a
  // row); scrolled down, the selection holds its place on screen and what is added above stays above.
  const screenRow = prevIndex === -1 ? index - next.jobScroll : prevIndex - prev.jobScroll;
  const anchor = prev.jobScroll === 0 && prevIndex !== -1 ? 0 : index - screenRow;
  const jobScroll = index === -1 ? 0 : keepInView(index, anchor, rows, visible.length);
  if (selectedJobId === next.selectedJobId && jobScroll === next.jobScroll) return next;
  return { ...next, selectedJobId, jobScroll };
}

function settleRuns(prev: DashState, next: DashState): DashState {
  if (next.running === prev.running && next.selectedRunId !== null) return next;
  const runs = runningRuns(next);
  if (runs.length === 0)
    return next.selectedRunId === null && next.focus === 'jobs'
      ? next
      : { ...next, selectedRunId: null, focus: 'jobs' };
  if (next.selectedRunId !== null && next.running.has(next.selectedRunId)) return next;
  const before = runningRuns(prev).findIndex((run) => run.id === prev.selectedRunId);
  const selectedRunId = runs[Math.min(Math.max(before, 0), runs.length - 1)]!.id;
  return { ...next, selectedRunId };
}

function settleView(state: DashState): DashState {
  const view = state.view;
  if (view.kind === 'job') {
    const job = state.jobs.get(view.jobId);
    if (!job) return { ...state, view: { kind: 'main' }, confirm: null };
    const runs = state.history.get(view.jobId) ?? [];
    let index = view.runId === null ? -1 : runs.findIndex((run) => run.id === view.runId);
    if (index === -1) index = 0;
    const runId = runs[index]?.id ?? null;
    const scroll = keepInView(index, view.scroll, historyRows(state.size), runs.length);
    if (runId === view.runId && scroll === view.scroll) return state;
    return { ...state, view: { ...view, runId, scroll } };
  }
  if (view.kind === 'cluster') {
    const scroll = Math.min(view.scroll, lastClusterScroll(state));
    return scroll === view.scroll ? state : { ...state, view: { ...view, scroll } };
  }
  if (view.kind === 'run' && view.scroll !== null && state.output) {
    const bottom = Math.max(0, outputLines(state.output).length - outputRows(state.size));
    if (view.scroll > bottom) return { ...state, view: { ...view, scroll: bottom } };
  }
  return state;
}

/** Moves the selection (or scrolls the output) by `delta` rows; ±Infinity goes to the ends. */
export function move(state: DashState, delta: number): DashState {
  const view = state.view;
  if (view.kind === 'run') {
    if (!state.output) return state;
    const bottom = Math.max(0, outputLines(state.output).length - outputRows(state.size));
    const top = clamp((view.scroll ?? bottom) + delta, 0, bottom);
    // Reaching the end follows the output again, as `tail -f` does.
    return { ...state, view: { ...view, scroll: top >= bottom ? null : top } };
  }
  if (view.kind === 'cluster') {
    return { ...state, view: { ...view, scroll: clamp(view.scroll + delta, 0, lastClusterScroll(state)) } };
  }
  if (view.kind === 'job') {
    const runs = state.history.get(view.jobId) ?? [];
    if (runs.length === 0) return state;
    const current = Math.max(
      0,
      runs.findIndex((run) => run.id === view.runId),
    );
    const index = clamp(current + delta, 0, runs.length - 1);
    const scroll = keepInView(index, view.scroll, historyRows(state.size), runs.length);
    return { ...state, view: { ...view, runId: runs[index]!.id, scroll } };
  }
  if (state.focus === 'runs') {
    const runs = runningRuns(state);
    const current = Math.max(
      0,
      runs.findIndex((run) => run.id === state.selectedRunId),
    );
    const run = runs[clamp(current + delta, 0, runs.length - 1)];
    return run ? { ...state, selectedRunId: run.id } : state;
  }
  const visible = visibleJobIds(state);
  if (visible.length === 0) return state;
  const current = state.selectedJobId === null ? 0 : Math.max(0, visible.indexOf(state.selectedJobId));
  const index = clamp(current + delta, 0, visible.length - 1);
  const rows = mainPanes(state.size, state.running.size).jobRows;
  return {
    ...state,
    selectedJobId: visible[index]!,
    jobScroll: keepInView(index, state.jobScroll, rows, visible.length),
  };
}

/** How far PgUp/PgDn go in the current view: a screenful less one row of overlap. */
export function pageSize(state: DashState): number {
  if (state.view.kind === 'run') return Math.max(1, outputRows(state.size) - 1);
  if (state.view.kind === 'job') return Math.max(1, historyRows(state.size) - 1);
  if (state.view.kind === 'cluster') return Math.max(1, clusterRows(state.size) - 1);
  if (state.focus === 'runs') return mainPanes(state.size, state.running.size).runRows;
  return Math.max(1, mainPanes(state.size, state.running.size).jobRows - 1);
}

/** The cluster view scrolls no further than to show its last node at the bottom. */
function lastClusterScroll(state: DashState): number {
  return Math.max(0, (state.cluster.status?.nodes.length ?? 0) - clusterRows(state.size));
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(Math.max(value, low), high);
}
