import { DEFAULT_TIME_POLICY, DEFAULT_PLACEMENT, type Job } from '../../src/core/job.js';
import type { Run, RunSummary } from '../../src/core/run.js';
import type { DaemonStatus, StreamEvent } from '../../src/ipc/protocol.js';
import { reduce, initialState } from '../../src/tui/state/reduce.js';
import type { DashState, Snapshot } from '../../src/tui/state/types.js';

/** 2026-06-01 10:00:00 UTC: every test sees the same clock. */
export const NOW = Date.parse('2026-06-01T10:00:00Z');
export const SIZE_80x24 = { columns: 80, rows: 24 };

let sequence = 0;
/** Ids sort like UUIDv7: later ones are greater. */
export function nextId(prefix: string): string {
  sequence += 1;
  return `${prefix}-${String(sequence).padStart(6, '0')}`;
}

export function makeJob(overrides: Partial<Job> & { name: string }): Job {
  return {
    id: overrides.id ?? `job-${overrides.name}`,
    description: null,
    schedule: { kind: 'every', intervalMs: 3_600_000, anchorMs: NOW - 1_800_000 },
    timezone: 'UTC',
    target: { kind: 'command', argv: ['true'], shell: null, cwd: null, env: {} },
    payload: null,
    timeoutMs: null,
    labels: {},
    retry: { maxRetries: 0, initialBackoffMs: 10_000, factor: 2, maxBackoffMs: 3_600_000, jitter: true },
    policy: DEFAULT_TIME_POLICY,
    after: [],
    afterAll: [],
    placement: DEFAULT_PLACEMENT,
    state: 'active',
    version: 1,
    owner: 'alice',
    createdAt: NOW - 86_400_000,
    updatedAt: NOW - 86_400_000,
    deletedAt: null,
    nextRunAt: NOW + 1_800_000,
    ...overrides,
  };
}

export function makeRun(job: Job, overrides: Partial<Run> = {}): Run {
  return {
    id: overrides.id ?? nextId('run'),
    jobId: job.id,
    jobName: job.name,
    scheduledFor: NOW - 60_000,
    attempt: 1,
    trigger: 'schedule',
    state: 'succeeded',
    node: 'host',
    fence: 1,
    createdAt: NOW - 60_000,
    startedAt: NOW - 60_000,
    finishedAt: NOW - 58_000,
    pid: 4242,
    exitCode: 0,
    httpStatus: null,
    signal: null,
    error: null,
    retriedBy: null,
    dueAt: NOW - 60_000,
    stdoutTail: '',
    stderrTail: '',
    responseHeaders: null,
    ...overrides,
  };
}

export const daemonStatus: DaemonStatus = {
  pid: 4100,
  version: '0.1.0',
  home: '/home/alice/.sched',
  socketPath: '/run/user/1000/sched.sock',
  store: 'sqlite:/home/alice/.sched/sched.db',
  node: 'build-01',
  startedAt: NOW - 3 * 3_600_000 - 120_000,
  now: NOW,
  jobs: { active: 0, paused: 0 },
  runningRuns: 0,
  commands: { alive: 0, waiting: 0, maxChildren: 5_000 },
};

export function snapshot(
  jobs: Job[],
  runs: { running?: RunSummary[]; recent?: RunSummary[] } = {},
): Snapshot {
  return { daemon: daemonStatus, jobs, running: runs.running ?? [], recent: runs.recent ?? [] };
}

/** A dashboard that has read `jobs` from the daemon, on an 80×24 terminal. */
export function loaded(
  jobs: Job[],
  runs: { running?: RunSummary[]; recent?: RunSummary[] } = {},
  size = SIZE_80x24,
): DashState {
  return reduce(initialState(size, NOW, 'UTC'), {
    type: 'snapshot',
    snapshot: snapshot(jobs, runs),
    now: NOW,
  });
}

export function event<T extends StreamEvent['type']>(
  type: T,
  data: Extract<StreamEvent, { type: T }>['data'],
  at = NOW,
): StreamEvent {
  return { type, at, data } as StreamEvent;
}

export function apply(state: DashState, ...events: StreamEvent[]): DashState {
  return reduce(state, { type: 'events', events, now: state.now });
}

/** `count` jobs named job-00000 … in name order. */
export function manyJobs(count: number): Job[] {
  return Array.from({ length: count }, (_, index) =>
    makeJob({ name: `job-${String(index).padStart(5, '0')}`, nextRunAt: NOW + (index + 1) * 1_000 }),
  );
}
