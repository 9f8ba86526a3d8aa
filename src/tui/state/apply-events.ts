import type { Job } from '../../core/job.js';
import { isFinalRunState, type Run, type RunSummary } from '../../core/run.js';
import { nextFireTime } from '../../core/schedule/next.js';
import type { StreamEvent } from '../../ipc/protocol.js';
import { comparatorFor, insertId, sortedIds } from './job-order.js';
import { HISTORY_LIMIT, type DashState, type OutputChunk, type RunOutput, type Snapshot } from './types.js';

const MINUTE = 60_000;
/** Live output kept for the run view; older chunks go (the daemon keeps the last 64 KiB anyway). */
const MAX_LIVE_CHUNKS = 5_000;

/**
 * A batch of events changes a few entries of maps that may hold 10,000 jobs. The draft copies each map
 * once, on its first change in the batch, instead of once per event.
 */
class Draft {
  jobs: Map<string, Job> | null = null;
  order: string[] | null = null;
  history: Map<string, readonly RunSummary[]> | null = null;
  running: Map<string, RunSummary> | null = null;
  finishes: Map<string, number> | null = null;
  next: DashState;

  constructor(base: DashState) {
    this.next = { ...base };
  }

  writeJobs(): Map<string, Job> {
    return (this.jobs ??= new Map(this.next.jobs));
  }
  writeOrder(): string[] {
    return (this.order ??= [...this.next.order]);
  }
  writeHistory(): Map<string, readonly RunSummary[]> {
    return (this.history ??= new Map(this.next.history));
  }
  writeRunning(): Map<string, RunSummary> {
    return (this.running ??= new Map(this.next.running));
  }
  writeFinishes(): Map<string, number> {
    return (this.finishes ??= new Map(this.next.finishes));
  }

  result(): DashState {
    const next = this.next;
    if (this.jobs) next.jobs = this.jobs;
    if (this.order) next.order = this.order;
    if (this.history) next.history = this.history;
    if (this.running) next.running = this.running;
    if (this.finishes) next.finishes = this.finishes;
    return next;
  }

  get currentJobs(): ReadonlyMap<string, Job> {
    return this.jobs ?? this.next.jobs;
  }
  get currentHistory(): ReadonlyMap<string, readonly RunSummary[]> {
    return this.history ?? this.next.history;
  }
}

export function applyEvents(state: DashState, events: readonly StreamEvent[], now: number): DashState {
  const draft = new Draft({ ...state, now });
  for (const event of events) applyEvent(draft, event);
  return draft.result();
}

function applyEvent(draft: Draft, event: StreamEvent): void {
  switch (event.type) {
    case 'job:created':
    case 'job:updated':
      return upsertJob(draft, event.data);
    case 'job:cancelled':
      return removeJob(draft, event.data.id);
    case 'job:overdue':
      return markOverdue(draft, event.data.jobId, event.data.since);
    case 'job:recovered':
      return markOverdue(draft, event.data.jobId, undefined);
    case 'run:fired':
      advanceNextRun(draft, event.data);
      return upsertRun(draft, event.data);
    case 'run:retry-scheduled':
    case 'run:finished':
    case 'run:lost':
    case 'run:dead':
      return upsertRun(draft, event.data);
    case 'run:started': {
      const { runId, jobId, pid, at } = event.data;
      const known = draft.currentHistory.get(jobId)?.find((run) => run.id === runId);
      const job = draft.currentJobs.get(jobId);
      const run: RunSummary = known ?? placeholderRun(runId, jobId, job?.name ?? jobId, at);
      return upsertRun(draft, { ...run, state: 'running', startedAt: at, pid });
    }
    case 'run:output':
      return appendOutput(draft, event.data.runId, event.data);
    case 'daemon:started':
      if (draft.next.daemon)
        draft.next.daemon = { ...draft.next.daemon, pid: event.data.pid, startedAt: event.data.at };
      return;
    case 'daemon:stopping':
      draft.next.flash = {
        text: `The daemon is stopping (${event.data.reason}).`,
        tone: 'info',
        at: draft.next.now,
      };
      return;
    case 'stream:dropped':
      return;
  }
}

function upsertJob(draft: Draft, job: Job): void {
  const existing = draft.currentJobs.get(job.id);
  // Events and snapshots can cross on the wire; a version never goes back.
  if (existing && existing.version > job.version) return;
  if (job.state === 'cancelled' || job.deletedAt !== null) return removeJob(draft, job.id);
  const jobs = draft.writeJobs();
  jobs.set(job.id, job);
  if (!existing)
    insertId(draft.writeOrder(), job, jobs, comparatorFor(draft.next.sort, draft.currentHistory));
}

/** A job's dead-man's switch tripped (`since`) or cleared (undefined); the job itself is unchanged. */
function markOverdue(draft: Draft, jobId: string, since: number | undefined): void {
  const existing = draft.currentJobs.get(jobId);
  if (!existing) return;
  const { overdueSince: _previous, ...job } = existing;
  draft.writeJobs().set(jobId, since === undefined ? job : { ...job, overdueSince: since });
}

/**
 * The daemon moves a job's next run on as it fires without sending the job again; the countdown follows
 * the same schedule maths from the instant that fired.
 */
function advanceNextRun(draft: Draft, run: RunSummary): void {
  if (run.trigger !== 'schedule' || run.attempt !== 1) return;
  const job = draft.currentJobs.get(run.jobId);
  if (!job || job.nextRunAt === null || job.nextRunAt > run.scheduledFor) return;
  const nextRunAt = nextFireTime(job.schedule, run.scheduledFor, job.timezone);
  draft.writeJobs().set(job.id, { ...job, nextRunAt });
}

function removeJob(draft: Draft, jobId: string): void {
  if (!draft.currentJobs.has(jobId)) return;
  draft.writeJobs().delete(jobId);
  const order = draft.writeOrder();
  const index = order.indexOf(jobId);
  if (index !== -1) order.splice(index, 1);
  draft.writeHistory().delete(jobId);
}

/** Drops the output tails: a run:finished carries up to 128 KiB that the tables never show. */
function toSummary(run: Run | RunSummary): RunSummary {
  if (!('stdoutTail' in run)) return run;
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { stdoutTail, stderrTail, responseHeaders, ...summary } = run;
  return summary;
}

function upsertRun(draft: Draft, incoming: Run | RunSummary): void {
  const run = toSummary(incoming);
  const list = draft.currentHistory.get(run.jobId) ?? [];
  const index = list.findIndex((known) => known.id === run.id);
  const known = index === -1 ? undefined : list[index];
  // A final state is final: a late `run:started` must not bring a finished run back to life.
  if (known && isFinalRunState(known.state) && !isFinalRunState(run.state)) return;
  const updated = [...list];
  if (known) updated[index] = run;
  else {
    // Run ids are UUIDv7, so they sort by creation: newest first is descending id order.
    let at = 0;
    while (at < updated.length && updated[at]!.id > run.id) at += 1;
    updated.splice(at, 0, run);
    updated.length = Math.min(updated.length, HISTORY_LIMIT);
  }
  draft.writeHistory().set(run.jobId, updated);

  if (run.state === 'running') draft.writeRunning().set(run.id, run);
  else if (draft.next.running.has(run.id) || draft.running?.has(run.id)) draft.writeRunning().delete(run.id);
  if (isFinalRunState(run.state) && run.finishedAt !== null)
    draft.writeFinishes().set(run.id, run.finishedAt);

  const output = draft.next.output;
  if (output?.runId === run.id && 'stdoutTail' in incoming) {
    // The view opened mid-run shows only what came live; the end state holds all that was kept.
    const complete = isFinalRunState(incoming.state) && !showsAllOf(output, incoming);
    draft.next.output = complete
      ? { ...output, run: incoming, base: tailChunks(incoming), live: [] }
      : { ...output, run: incoming };
  }
}

export function tailChunks(run: Run): OutputChunk[] {
  const chunks: OutputChunk[] = [];
  if (run.stdoutTail) chunks.push({ stream: 'stdout', data: run.stdoutTail });
  if (run.stderrTail) chunks.push({ stream: 'stderr', data: run.stderrTail });
  return chunks;
}

/** Whether the output on screen already holds each stream's kept tail (so nothing needs replacing). */
function showsAllOf(output: RunOutput, run: Run): boolean {
  const shown = (stream: OutputChunk['stream']) =>
    [...output.base, ...output.live]
      .filter((chunk) => chunk.stream === stream)
      .map((chunk) => chunk.data)
      .join('');
  return shown('stdout').endsWith(run.stdoutTail) && shown('stderr').endsWith(run.stderrTail);
}

function appendOutput(draft: Draft, runId: string, chunk: OutputChunk): void {
  const output = draft.next.output;
  if (output?.runId !== runId) return;
  const live = [...output.live, { stream: chunk.stream, data: chunk.data, seq: chunk.seq }];
  draft.next.output = { ...output, live: live.slice(-MAX_LIVE_CHUNKS) };
}

function placeholderRun(id: string, jobId: string, jobName: string, at: number): RunSummary {
  return {
    id,
    jobId,
    jobName,
    scheduledFor: at,
    attempt: 1,
    trigger: 'schedule',
    state: 'scheduled',
    node: '',
    fence: 0,
    createdAt: at,
    startedAt: null,
    finishedAt: null,
    pid: null,
    exitCode: null,
    httpStatus: null,
    signal: null,
    error: null,
    retriedBy: null,
    dueAt: at,
  };
}

/**
 * A fresh picture from the daemon (at start and after every reconnect). Histories read earlier stay (runs
 * do not vanish) but count as unread again, so the rows on screen fetch theirs anew.
 */
export function applySnapshot(state: DashState, snapshot: Snapshot, now: number): DashState {
  const jobs = new Map<string, Job>();
  for (const job of snapshot.jobs)
    if (job.state !== 'cancelled' && job.deletedAt === null) jobs.set(job.id, job);
  const history = new Map<string, readonly RunSummary[]>();
  const stillRunning = new Set(snapshot.running.map((run) => run.id));
  for (const [jobId, runs] of state.history) {
    // What ran while we were away has ended somehow; the fresh pages say how, or the row reloads.
    if (jobs.has(jobId))
      history.set(
        jobId,
        runs.filter((run) => isFinalRunState(run.state) || stillRunning.has(run.id)),
      );
  }
  const draft = new Draft({
    ...state,
    now,
    daemon: snapshot.daemon,
    jobs,
    history,
    historyLoaded: new Set(),
    running: new Map(),
    finishes: new Map(),
  });
  // Oldest first, so each run lands where the newest-first order puts it.
  for (const run of [...snapshot.recent].reverse()) upsertRun(draft, run);
  for (const run of snapshot.running) upsertRun(draft, run);
  const next = draft.result();
  next.finishes = pruneFinishes(next.finishes, now);
  next.order = sortedIds(next.jobs, comparatorFor(next.sort, next.history));
  next.connection = { kind: 'live' };
  return next;
}

/** Forgets finishes older than a minute, so the map stays as small as the figure it feeds. */
export function pruneFinishes(
  finishes: ReadonlyMap<string, number>,
  now: number,
): ReadonlyMap<string, number> {
  let stale = false;
  for (const at of finishes.values()) if (at <= now - MINUTE) stale = true;
  if (!stale) return finishes;
  return new Map([...finishes].filter(([, at]) => at > now - MINUTE));
}

/** Runs read from the daemon (a job's history): merged like events, so a newer event is never undone. */
export function applyRuns(state: DashState, runs: readonly RunSummary[]): DashState {
  const draft = new Draft(state);
  for (const run of [...runs].reverse()) upsertRun(draft, run);
  return draft.result();
}
