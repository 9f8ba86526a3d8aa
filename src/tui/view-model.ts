import { describeCommand } from '../cli/format/command-line.js';
import { formatLabels } from '../cli/format/labels.js';
import { describeRetryPolicy } from '../cli/format/retry-policy.js';
import { describeExit, runDurationMs } from '../cli/format/run-detail.js';
import { rawSchedule } from '../cli/format/schedule.js';
import { formatInstant, formatInstantWithRelative } from '../cli/format/time.js';
import { formatDuration } from '../core/duration.js';
import type { Job } from '../core/job.js';
import { describeSchedule } from '../core/schedule/describe.js';
import {
  elapsed,
  fit,
  lastResultCell,
  nextRunCell,
  runStateCell,
  sparkline,
  uptime,
  type Cell,
} from './cells.js';
import { historyRows, jobColumns, mainPanes, outputRows, type JobColumns } from './layout.js';
import {
  jobCounts,
  outputLines,
  runningRuns,
  runsPerMinute,
  visibleJobIds,
  type OutputLine,
} from './state/selectors.js';
import type { DashState } from './state/types.js';

/**
 * What the components draw, derived from the state: the components only lay these out. Only the rows on
 * screen are built, so 10,000 jobs cost what 20 do.
 */
export interface JobRowView {
  id: string;
  name: string;
  schedule: string;
  next: Cell;
  last: Cell;
  runs: Cell[];
  labels: string;
}

// One formatter for every count: making one per call costs more than the rest of a frame's text.
const COUNT = new Intl.NumberFormat('en-US');
const count = (value: number): string => COUNT.format(value);

const SORT_WORDS = { name: 'name', next: 'next run', problems: 'problems first' } as const;

const scheduleWords = new WeakMap<Job, string>();

/** `at 09:00 on weekdays (Europe/Berlin)`; remembered per job version, since cron parsing is not free. */
function scheduleText(job: Job): string {
  let text = scheduleWords.get(job);
  if (text === undefined) {
    text = describeSchedule(job.schedule, job.timezone);
    scheduleWords.set(job, text);
  }
  return text;
}

export interface JobTableView {
  columns: JobColumns;
  rows: JobRowView[];
  /** `JOBS 1–17 of 1,000 · sort: name · filter: ops` */
  title: string;
  total: number;
}

export function jobRows(state: DashState): JobTableView {
  const columns = jobColumns(state.size.columns);
  const visible = visibleJobIds(state);
  const { jobRows: height } = mainPanes(state.size, state.running.size);
  const rows: JobRowView[] = [];
  for (const id of visible.slice(state.jobScroll, state.jobScroll + height)) {
    const job = state.jobs.get(id);
    if (!job) continue;
    const history = state.history.get(id);
    rows.push({
      id,
      name: job.name,
      schedule: scheduleText(job),
      next: nextRunCell(job, state.now),
      last: lastResultCell(history?.[0], state.now),
      runs: columns.runs ? sparkline(history, columns.runs) : [],
      labels: columns.labels ? formatLabels(job.labels) : '',
    });
  }
  const total = visible.length;
  const position =
    total > height
      ? `${count(state.jobScroll + 1)}–${count(Math.min(state.jobScroll + height, total))} of ${count(total)}`
      : `${count(total)}`;
  const title = [position, `sort: ${SORT_WORDS[state.sort]}`, state.filter ? `filter: ${state.filter}` : '']
    .filter(Boolean)
    .join(' · ');
  return { columns, rows, title, total };
}

export interface RunRowView {
  id: string;
  text: string;
  state: Cell;
}

/** The runs pane: what runs now, each with how long it has been running. */
export function runRows(state: DashState): { rows: RunRowView[]; total: number; height: number } {
  const runs = runningRuns(state);
  const { runRows: height } = mainPanes(state.size, state.running.size);
  const selected = Math.max(
    0,
    runs.findIndex((run) => run.id === state.selectedRunId),
  );
  const first = Math.max(0, Math.min(selected - height + 1, runs.length - height));
  const rows = runs.slice(Math.max(0, first), Math.max(0, first) + height).map((run) => {
    const since = run.startedAt === null ? '' : elapsed(Math.max(0, state.now - run.startedAt));
    const facts = [
      fit(run.jobName, 24),
      fit(`#${run.attempt}`, 4),
      fit(since, 8, 'right'),
      run.pid === null ? '' : `pid ${run.pid}`,
      run.trigger === 'schedule' ? '' : run.trigger,
      `run ${run.id}`,
    ];
    return { id: run.id, text: facts.filter(Boolean).join('  '), state: runStateCell('running') };
  });
  return { rows, total: runs.length, height };
}

export interface HeaderView {
  daemon: string;
  connection: Cell;
  jobs: string;
  runs: string;
  failing: number;
}

export function header(state: DashState): HeaderView {
  const { daemon, connection } = state;
  const counts = jobCounts(state);
  const daemonText = daemon
    ? `daemon pid ${daemon.pid} · node ${daemon.node} · ${uptime(daemon.startedAt, state.now)} · ${daemon.store}`
    : 'daemon —';
  const connectionCell: Cell =
    connection.kind === 'live'
      ? { text: '● live', tone: 'ok' }
      : connection.kind === 'connecting'
        ? { text: '◌ connecting…', tone: 'warn' }
        : {
            text: `◌ reconnecting… ${connection.reason}; try ${connection.attempt} ${formatRetry(connection.retryAt, state.now)}`,
            tone: 'warn',
          };
  return {
    daemon: daemonText,
    connection: connectionCell,
    jobs: `${count(counts.total)} jobs: ${count(counts.active)} active, ${count(counts.paused)} paused`,
    runs: `${counts.running} running · ${runsPerMinute(state)} runs/min`,
    failing: counts.failing,
  };
}

function formatRetry(retryAt: number, now: number): string {
  const seconds = Math.max(0, Math.ceil((retryAt - now) / 1000));
  return seconds === 0 ? 'now' : `in ${seconds}s`;
}

export interface DetailView {
  title: string;
  state: Cell;
  fields: [string, string][];
  runs: {
    id: string;
    when: string;
    attempt: string;
    state: Cell;
    exit: string;
    took: string;
    trigger: string;
  }[];
  selectedRunId: string | null;
  total: number;
  loaded: boolean;
}

export function jobDetail(
  state: DashState,
  jobId: string,
  runId: string | null,
  scroll: number,
): DetailView | null {
  const job = state.jobs.get(jobId);
  if (!job) return null;
  const viewer = { zone: state.zone, now: state.now };
  const target =
    job.target.kind === 'http' ? `${job.target.method} ${job.target.url}` : describeCommand(job.target);
  const next =
    job.nextRunAt === null
      ? nextRunCell(job, state.now).text
      : formatInstantWithRelative(job.nextRunAt, viewer);
  const history = state.history.get(jobId) ?? [];
  return {
    title: job.description ? `${job.name} — ${job.description}` : job.name,
    state: job.state === 'paused' ? { text: '‖ paused', tone: 'warn' } : { text: job.state, tone: 'ok' },
    fields: [
      ['Schedule', `${scheduleText(job)}  ${rawSchedule(job.schedule)}`],
      ['Next run', next],
      [job.target.kind === 'http' ? 'Request' : 'Command', target],
      [
        'Retries',
        `${describeRetryPolicy(job.retry)} · timeout ${job.timeoutMs === null ? 'none' : formatDuration(job.timeoutMs)}`,
      ],
      ['Labels', formatLabels(job.labels) || '-'],
    ],
    runs: history.slice(scroll, scroll + historyRows(state.size)).map((run) => {
      const took = runDurationMs(run, state.now);
      return {
        id: run.id,
        when: formatInstant(run.scheduledFor, state.zone),
        attempt: `#${run.attempt}`,
        state: runStateCell(run.state),
        exit: describeExit(run),
        took: took === null ? '' : formatDuration(took),
        trigger: run.trigger === 'schedule' ? '' : run.trigger,
      };
    }),
    selectedRunId: runId,
    total: history.length,
    loaded: state.historyLoaded.has(jobId),
  };
}

export interface OutputView {
  title: string;
  state: Cell | null;
  lines: OutputLine[];
  first: number;
  total: number;
  following: boolean;
  note: string | null;
}

export function runOutput(state: DashState, runId: string, scroll: number | null): OutputView {
  const output = state.output?.runId === runId ? state.output : null;
  const run = output?.run ?? null;
  const lines = output ? outputLines(output) : [];
  const rows = outputRows(state.size);
  const bottom = Math.max(0, lines.length - rows);
  const first = scroll === null ? bottom : Math.min(scroll, bottom);
  let title = `run ${runId}`;
  let stateCell: Cell | null = null;
  if (run) {
    const took = runDurationMs(run, state.now);
    const facts = [`attempt ${run.attempt}`, describeExit(run), took === null ? '' : formatDuration(took)];
    title = `${run.jobName} · run ${run.id} · ${facts.filter(Boolean).join(' · ')}`;
    stateCell = runStateCell(run.state);
  }
  let note: string | null = null;
  if (output?.error) note = `Could not read the run: ${output.error}`;
  else if (!run) note = 'Reading the run…';
  else if (lines.length === 0) note = run.state === 'running' ? '(no output yet)' : '(no output)';
  return {
    title,
    state: stateCell,
    lines: lines.slice(first, first + rows),
    first,
    total: lines.length,
    following: scroll === null,
    note,
  };
}
