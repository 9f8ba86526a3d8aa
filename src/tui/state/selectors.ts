import type { RunSummary } from '../../core/run.js';
import { matchesFilter } from './job-order.js';
import type { DashState, OutputChunk, RunOutput } from './types.js';

type VisibleInput = Pick<DashState, 'order' | 'jobs' | 'filter'>;

// The reducer compares the list before and after each action and the view reads it once more per frame;
// a few remembered answers keep a filter over 10,000 jobs from running three times per event.
const visibleCache: { input: VisibleInput; ids: readonly string[] }[] = [];

/** The ids of the jobs the table lists, in display order: the order, narrowed by the filter. */
export function visibleJobIds(state: VisibleInput): readonly string[] {
  if (state.filter.trim() === '') return state.order;
  const hit = visibleCache.find(
    ({ input }) => input.order === state.order && input.jobs === state.jobs && input.filter === state.filter,
  );
  if (hit) return hit.ids;
  const ids = state.order.filter((id) => {
    const job = state.jobs.get(id);
    return job !== undefined && matchesFilter(job, state.filter);
  });
  visibleCache.unshift({ input: { order: state.order, jobs: state.jobs, filter: state.filter }, ids });
  visibleCache.length = Math.min(visibleCache.length, 4);
  return ids;
}

export interface JobCounts {
  total: number;
  active: number;
  paused: number;
  running: number;
  /** Jobs whose latest run failed, timed out or was lost. */
  failing: number;
}

const FAILED = new Set(['failed', 'timed_out', 'lost']);

export function jobCounts(state: Pick<DashState, 'jobs' | 'history' | 'running'>): JobCounts {
  let active = 0;
  let paused = 0;
  let failing = 0;
  for (const job of state.jobs.values()) {
    if (job.state === 'active') active += 1;
    else if (job.state === 'paused') paused += 1;
    const latest = state.history.get(job.id)?.[0];
    if (latest && FAILED.has(latest.state)) failing += 1;
  }
  return { total: state.jobs.size, active, paused, running: state.running.size, failing };
}

/** Runs that finished in the minute before `now`. */
export function runsPerMinute(state: Pick<DashState, 'finishes' | 'now'>): number {
  let count = 0;
  for (const at of state.finishes.values()) if (at > state.now - 60_000 && at <= state.now) count += 1;
  return count;
}

/** What runs now, longest-running first; ties by id, so rows keep their places. */
export function runningRuns(state: Pick<DashState, 'running'>): RunSummary[] {
  return [...state.running.values()].sort(
    (a, b) => (a.startedAt ?? a.createdAt) - (b.startedAt ?? b.createdAt) || (a.id < b.id ? -1 : 1),
  );
}

export function isFailedState(state: RunSummary['state']): boolean {
  return FAILED.has(state);
}

/** The run of a job that runs now, if any (the newest, when several do). */
export function runningRunOf(
  state: Pick<DashState, 'history' | 'running'>,
  jobId: string,
): RunSummary | undefined {
  const fromHistory = state.history.get(jobId)?.find((run) => run.state === 'running');
  if (fromHistory) return fromHistory;
  return [...state.running.values()].find((run) => run.jobId === jobId);
}

export interface OutputLine {
  stream: 'stdout' | 'stderr';
  text: string;
}

const lineCache = new WeakMap<RunOutput, OutputLine[]>();

/**
 * The run view's lines: what the daemon kept (stdout, then stderr), then live output in arrival order.
 * A chunk of the other stream starts a new line, so stderr never hides inside a line of stdout.
 */
export function outputLines(output: RunOutput): OutputLine[] {
  const cached = lineCache.get(output);
  if (cached) return cached;
  const chunks: OutputChunk[] = [];
  if (output.run && output.live.length === 0 && output.base.length === 0) {
    if (output.run.stdoutTail) chunks.push({ stream: 'stdout', data: output.run.stdoutTail });
    if (output.run.stderrTail) chunks.push({ stream: 'stderr', data: output.run.stderrTail });
  } else {
    chunks.push(...output.base, ...output.live);
  }
  const lines: OutputLine[] = [];
  let open: OutputLine | null = null;
  for (const chunk of chunks) {
    if (open !== null && open.stream !== chunk.stream) open = null;
    const parts = chunk.data.replaceAll('\r\n', '\n').split('\n');
    for (let index = 0; index < parts.length; index += 1) {
      const part = parts[index]!;
      if (index > 0) open = null;
      if (open !== null) open.text += part;
      else if (index < parts.length - 1 || part !== '') {
        open = { stream: chunk.stream, text: part };
        lines.push(open);
      }
    }
  }
  lineCache.set(output, lines);
  return lines;
}
