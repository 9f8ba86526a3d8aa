import type { Job } from '../../core/job.js';
import type { Run, RunSummary } from '../../core/run.js';
import type { ClusterStatus, DaemonStatus, StreamEvent } from '../../ipc/protocol.js';

/**
 * Everything the dashboard shows, as one value: `reduce(state, action)` is the only way it changes, so
 * what is on screen follows from the actions that arrived and nothing else.
 */
export interface DashState {
  /** The wall clock of the last action that carried one (ticks, events): countdowns are relative to it. */
  now: number;
  /** The viewer's time zone: instants are shown in it. */
  zone: string;
  size: { columns: number; rows: number };
  connection: Connection;
  daemon: DaemonStatus | null;
  cluster: ClusterReading;
  jobs: ReadonlyMap<string, Job>;
  /**
   * Job ids in display order. Computed when the sort mode changes or a snapshot arrives; updates change
   * rows in place and new jobs slot in, so rows never move under the reader's eyes.
   */
  order: readonly string[];
  sort: SortMode;
  filter: string;
  editingFilter: boolean;
  /** Each job's latest runs, newest first, at most HISTORY_LIMIT. */
  history: ReadonlyMap<string, readonly RunSummary[]>;
  /** Jobs whose history was read from the daemon (others know only what events and the first page said). */
  historyLoaded: ReadonlySet<string>;
  /** Runs in state `running`, by id. */
  running: ReadonlyMap<string, RunSummary>;
  /** When each run of the last minute finished, by run id: the runs-per-minute figure. */
  finishes: ReadonlyMap<string, number>;
  focus: 'jobs' | 'runs';
  selectedJobId: string | null;
  /** Index, among the visible jobs, of the top row on screen. */
  jobScroll: number;
  selectedRunId: string | null;
  view: View;
  output: RunOutput | null;
  help: boolean;
  confirm: { jobId: string; name: string } | null;
  flash: Flash | null;
}

export const HISTORY_LIMIT = 50;

export type SortMode = 'name' | 'next' | 'problems';
export const SORT_MODES: readonly SortMode[] = ['name', 'next', 'problems'];

export type Connection =
  | { kind: 'connecting' }
  | { kind: 'live' }
  | { kind: 'reconnecting'; attempt: number; reason: string; retryAt: number };

export type View =
  | { kind: 'main' }
  /** The daemons of the cluster; `scroll` is the index of the top node row on screen. */
  | { kind: 'cluster'; scroll: number }
  /** A job's detail and history; `runId` is the selected run of its history. */
  | { kind: 'job'; jobId: string; runId: string | null; scroll: number }
  /** `scroll` null follows the end of the output as it grows. */
  | { kind: 'run'; runId: string; scroll: number | null; back: 'main' | 'job' };

export interface OutputChunk {
  stream: 'stdout' | 'stderr';
  data: string;
  /** The daemon's number for a live chunk (see Run.outputSeq); absent for a kept tail. */
  seq?: number;
}

/**
 * The run the output view shows: `run` as the daemon last reported it; `base`, the output it had kept
 * when the view opened; `live`, what the run printed since (from `run:output` events).
 */
export interface RunOutput {
  runId: string;
  run: Run | null;
  base: readonly OutputChunk[];
  live: readonly OutputChunk[];
  error: string | null;
}

/**
 * The latest answer to `cluster.status`, polled while the dashboard runs. A failed poll keeps the last
 * answer, marked stale by `unavailable`, rather than blanking the panel over one missed reading.
 */
export interface ClusterReading {
  status: ClusterStatus | null;
  /** Our clock when `status` arrived: heartbeat ages keep growing from it until the next answer. */
  readAt: number;
  /** Why the last poll failed (a daemon that does not know the method, a store that is down); null once one succeeds. */
  unavailable: string | null;
}

export interface Flash {
  text: string;
  tone: 'info' | 'error';
  at: number;
}

export interface Snapshot {
  daemon: DaemonStatus;
  jobs: readonly Job[];
  running: readonly RunSummary[];
  /** The daemon's latest runs, newest first: seeds last results, sparklines and runs per minute. */
  recent: readonly RunSummary[];
}

export type Action =
  | { type: 'tick'; now: number }
  | { type: 'resize'; columns: number; rows: number }
  | { type: 'connection'; connection: Connection; now: number }
  | { type: 'snapshot'; snapshot: Snapshot; now: number }
  | { type: 'events'; events: readonly StreamEvent[]; now: number }
  | { type: 'history'; jobId: string; runs: readonly RunSummary[] }
  | { type: 'run-loaded'; run: Run }
  | { type: 'run-failed'; runId: string; error: string }
  | { type: 'cluster-status'; status: ClusterStatus; now: number }
  | { type: 'cluster-unavailable'; reason: string }
  | { type: 'flash'; text: string; tone: Flash['tone']; now: number }
  | { type: 'move'; delta: number }
  | { type: 'page'; direction: 1 | -1 }
  | { type: 'edge'; where: 'top' | 'bottom' }
  | { type: 'open-job'; jobId: string }
  | { type: 'open-run'; runId: string }
  | { type: 'open-cluster' }
  | { type: 'back' }
  | { type: 'focus-next' }
  | { type: 'sort-next' }
  | { type: 'filter-start' }
  | { type: 'filter-type'; text: string }
  | { type: 'filter-erase' }
  | { type: 'filter-done'; keep: boolean }
  | { type: 'help'; show: boolean }
  | { type: 'confirm-cancel'; jobId: string; name: string }
  | { type: 'confirm-dismiss' };

/** What a key asks of the daemon; the dashboard's backend carries it out and reports back with actions. */
export type Effect =
  | { kind: 'trigger'; jobId: string; name: string }
  | { kind: 'pause'; jobId: string; name: string }
  | { kind: 'resume'; jobId: string; name: string }
  | { kind: 'cancel'; jobId: string; name: string }
  | { kind: 'kill'; runId: string; jobName: string }
  | { kind: 'load-run'; runId: string };
