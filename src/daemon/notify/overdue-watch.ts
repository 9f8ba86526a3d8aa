import { formatDuration } from '../../core/duration.js';
import type { Job, JobState } from '../../core/job.js';
import { overdueDeliveries, type NotifyDefaults } from '../../core/notify/plan.js';
import type { Store } from '../../store/store.js';
import { pauseFor, type Clock } from '../clock.js';
import type { DaemonEvents } from '../events.js';
import type { Service } from '../service.js';

export interface OverdueWatchOptions {
  store: Store;
  clock: Clock;
  events: DaemonEvents;
  newId: () => string;
  node: string;
  defaults: NotifyDefaults;
  /** Told when deliveries were stored, so they go out without waiting for a poll. */
  onDeliveries: () => void;
  /** Passes apart when nothing is due sooner; null: only at deadlines and changes seen here. */
  checkEveryMs?: number | null;
}

const PAGE = 500;
/**
 * A pass reads every job with a switch, so it runs when a watched job's deadline comes, when a job changes or
 * succeeds here, and otherwise this often: for changes and successes on other daemons of the store.
 */
const DEFAULT_CHECK_MS = 30_000;

/**
 * The dead-man's switch: every live job with `--expect-success-every D` that has not succeeded for D (since
 * its last success, or since it was created) is marked overdue, once, in the store, with a ledger note and
 * its `overdue` deliveries in the same transaction; its next success clears the mark and sends `recovered`.
 * The mark is stored, so neither a restart nor a second daemon on the same store notifies twice.
 */
export class OverdueWatch implements Service {
  readonly name = 'overdue-watch';
  private stopped = false;
  private loop: Promise<void> | null = null;
  private wakeUp = new AbortController();
  /** The earliest deadline of a watched job not yet overdue, seen at the last pass; null for none. */
  private nextDeadline: number | null = null;
  private readonly wake = (): void => this.wakeUp.abort();
  /** A change to a job that has or had a switch is looked at now; other jobs' changes cost nothing. */
  private readonly wakeOnChange = (job: Job): void => {
    if (job.alerts?.expectSuccessEveryMs != null || this.watched.has(job.id)) this.wake();
  };
  private readonly wakeOnSuccess = (run: { state: string; jobId: string }): void => {
    if (run.state === 'succeeded' && this.watched.has(run.jobId)) this.wake();
  };
  private overdue = new Map<string, { jobName: string; since: number }>();
  /** Every job watched at the last check, by id, with its name (for the metric's 0s). */
  private watched = new Map<string, string>();

  constructor(private readonly options: OverdueWatchOptions) {}

  async start(): Promise<void> {
    const { events } = this.options;
    events.on('job:created', this.wakeOnChange);
    events.on('job:updated', this.wakeOnChange);
    events.on('run:finished', this.wakeOnSuccess);
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    const { events } = this.options;
    events.off('job:created', this.wakeOnChange);
    events.off('job:updated', this.wakeOnChange);
    events.off('run:finished', this.wakeOnSuccess);
    this.stopped = true;
    this.wake();
    await this.loop;
  }

  /** Jobs overdue at the last check, with since when; for listings and the metric. */
  overdueJobs(): ReadonlyMap<string, { jobName: string; since: number }> {
    return this.overdue;
  }

  watchedJobs(): ReadonlyMap<string, string> {
    return this.watched;
  }

  /** One pass over the watched jobs; exposed for tests on a fake clock. */
  async check(): Promise<void> {
    const { store } = this.options;
    this.nextDeadline = null;
    const marks = new Map((await store.listOverdue()).map((mark) => [mark.jobId, mark.since]));
    const watched = new Map<string, string>();
    const look = async (job: Job): Promise<void> => {
      const every = job.alerts?.expectSuccessEveryMs ?? null;
      const since = marks.get(job.id);
      if (every === null && since === undefined) return;
      watched.set(job.id, job.name);
      await this.checkJob(job, every, since, marks);
    };
    // Only the jobs with a switch are read (a store of a million jobs has a handful), then those still
    // marked overdue whose switch was turned off since, to clear their mark.
    const states: JobState[] = ['active', 'paused'];
    let cursor: string | undefined;
    for (;;) {
      const page = await store.listJobs({ limit: PAGE, cursor, states, expectingSuccess: true });
      for (const job of page.items) await look(job);
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    for (const jobId of [...marks.keys()]) {
      if (watched.has(jobId)) continue;
      const job = await store.findJob(jobId);
      if (job && states.includes(job.state)) await look(job);
    }
    this.watched = watched;
    this.overdue = new Map(
      [...marks].flatMap(([jobId, since]) => {
        const jobName = watched.get(jobId);
        return jobName === undefined ? [] : [[jobId, { jobName, since }] as const];
      }),
    );
  }

  private async checkJob(
    job: Job,
    every: number | null,
    since: number | undefined,
    marks: Map<string, number>,
  ): Promise<void> {
    const { store, clock, events, newId, defaults, node } = this.options;
    const now = clock.now();
    const success = await store.latestSuccess(job.id);
    if (since !== undefined) {
      // A success since the mark clears it and is the recovery; the switch turned off clears it quietly.
      const recovered = success !== null && success.finishedAt >= since;
      if (!recovered && every !== null) return;
      const runId = recovered ? success.runId : '';
      const detail = `it succeeded again after being overdue since ${new Date(since).toISOString()}.`;
      const deliveries = recovered
        ? overdueDeliveries(job, { kind: 'recovered', runId }, defaults, detail, now, newId)
        : [];
      if ((await store.clearOverdue(job.id, deliveries)) === null) return;
      marks.delete(job.id);
      events.emit('job:recovered', { jobId: job.id, jobName: job.name, since, runId });
      if (deliveries.length > 0) this.options.onDeliveries();
      return;
    }
    if (every === null) return;
    const lastGood = success?.finishedAt ?? job.createdAt;
    const deadline = Math.max(lastGood, job.createdAt) + every;
    if (now < deadline) {
      this.nextDeadline = Math.min(this.nextDeadline ?? deadline, deadline);
      return;
    }
    const silence = `no run has succeeded for ${formatDuration(now - lastGood)} (expected one every ${formatDuration(every)}${
      success
        ? `; the last success was run ${success.runId} at ${new Date(success.finishedAt).toISOString()}`
        : '; it has never succeeded'
    }).`;
    const marked = await store.markOverdue({
      jobId: job.id,
      since: deadline,
      note: {
        jobId: job.id,
        scheduledFor: deadline,
        outcome: 'overdue',
        reason: silence,
        node,
        decidedAt: now,
      },
      deliveries: overdueDeliveries(job, { kind: 'overdue', since: deadline }, defaults, silence, now, newId),
    });
    marks.set(job.id, deadline);
    if (!marked) return;
    events.emit('job:overdue', { jobId: job.id, jobName: job.name, since: deadline });
    this.options.onDeliveries();
  }

  private async run(): Promise<void> {
    const { clock, events } = this.options;
    while (!this.stopped) {
      try {
        await this.check();
      } catch (error) {
        events.emit('scheduler:error', { error: error as Error });
      }
      if (this.stopped) return;
      let pause =
        this.options.checkEveryMs === null ? Infinity : (this.options.checkEveryMs ?? DEFAULT_CHECK_MS);
      if (this.nextDeadline !== null) pause = Math.min(pause, Math.max(0, this.nextDeadline - clock.now()));
      if (this.wakeUp.signal.aborted) this.wakeUp = new AbortController();
      else await pauseFor(clock, pause, this.wakeUp.signal);
      if (this.wakeUp.signal.aborted) this.wakeUp = new AbortController();
    }
  }
}
