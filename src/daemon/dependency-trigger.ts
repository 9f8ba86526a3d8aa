import { SchedError } from '../core/errors.js';
import { triggersOn, type UpstreamRunEnd } from '../core/dependencies/after.js';
import { fanInReady } from '../core/dependencies/fan-in.js';
import type { Job } from '../core/job.js';
import { overlapReason } from '../core/ledger/reasons.js';
import { isFinalRunState, type Run } from '../core/run.js';
import type { NewOccurrence, NewRun, Store } from '../store/store.js';
import type { Clock } from './clock.js';
import type { DaemonEvents } from './events.js';
import type { RunGate } from './run-gate.js';
import type { RunRouting } from './run-routing.js';
import type { Service } from './service.js';
import { UpstreamJobs } from './upstream-jobs.js';

export interface DependencyTriggerOptions {
  store: Store;
  clock: Clock;
  events: DaemonEvents;
  gate: RunGate;
  routing: RunRouting;
  newId: () => string;
  node: string;
  fence: () => number;
}

// A finished run's upstream id is kept this long for its retries' environment; a daemon restart forgets it.
const MAX_REMEMBERED = 10_000;

const JOB_CHANGES = ['job:created', 'job:updated', 'job:cancelled'] as const;

/**
 * Starts the runs of jobs that run after others: when an instant of an upstream job settles (its last attempt
 * ended and no retry follows), each `--after` dependent whose condition matches runs, with the upstream run id
 * in `SCHED_UPSTREAM_RUN`; an `--after-all` dependent runs once every one of its upstream jobs has succeeded
 * since it last ran. Settlements are handled one at a time, so two upstreams ending together start a fan-in once.
 * The end of a run of a job nothing runs after costs nothing (see UpstreamJobs). Once stopped (after the
 * runs have drained, before the store closes), it has handled every settlement it heard and hears no more.
 */
export class DependencyTrigger implements Service {
  readonly name = 'dependency trigger';
  private readonly upstreamOf = new Map<string, string>();
  private readonly upstreams: UpstreamJobs;
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: DependencyTriggerOptions) {
    this.upstreams = new UpstreamJobs(options.store);
  }

  async start(): Promise<void> {
    this.options.events.on('run:settled', this.heardSettled);
    for (const event of JOB_CHANGES) this.options.events.on(event, this.heardJobChange);
    await this.resync();
  }

  async stop(): Promise<void> {
    await this.settledAll();
    this.stopped = true;
    this.options.events.off('run:settled', this.heardSettled);
    for (const event of JOB_CHANGES) this.options.events.off(event, this.heardJobChange);
  }

  /** A job written through another node (this node's own writes are heard as events). */
  jobChanged(job: Job): void {
    this.upstreams.jobChanged(job);
  }

  /** Job changes may have been missed: which jobs are upstreams is read again. */
  async resync(): Promise<void> {
    await this.upstreams
      .load()
      .catch((error: Error) => void this.options.events.emit('scheduler:error', { error }));
  }

  private readonly heardJobChange = (job: Job): void => this.upstreams.jobChanged(job);

  private readonly heardSettled = (run: Run): void => {
    if (this.stopped) return;
    this.chain = this.chain
      .then(() => this.settled(run))
      .catch((error: Error) => void this.options.events.emit('scheduler:error', { error }));
  };

  /** `SCHED_UPSTREAM_RUN` for a run that a dependency started. */
  environmentFor(run: Run): Record<string, string> {
    const upstream = this.upstreamOf.get(instantKey(run));
    return upstream === undefined ? {} : { SCHED_UPSTREAM_RUN: upstream };
  }

  /** Resolves once every settlement seen so far has been handled. */
  async settledAll(): Promise<void> {
    let seen: Promise<void> | null = null;
    while (seen !== this.chain) {
      seen = this.chain;
      await seen;
    }
  }

  private async settled(upstream: Run): Promise<void> {
    if (!isFinalRunState(upstream.state) || upstream.state === 'scheduled' || upstream.state === 'running')
      return;
    if (!this.upstreams.mayHaveDependents(upstream.jobId)) return;
    const end = upstream.state as UpstreamRunEnd;
    const mark = this.upstreams.mark();
    const dependents = await this.options.store.listDependents(upstream.jobId);
    if (dependents.length === 0) this.upstreams.noDependents(upstream.jobId, mark);
    for (const job of dependents) {
      const links = job.after.filter((link) => link.job === upstream.jobId);
      const matched = links.find((link) => triggersOn(end, link.on, true));
      if (matched !== undefined) {
        await this.startRun(
          job,
          upstream,
          `${upstream.jobName}'s run ${upstream.id} ${words(end)} (--after ${upstream.jobName}:${matched.on})`,
        );
        continue;
      }
      if (end === 'succeeded' && job.afterAll.includes(upstream.jobId)) await this.fanIn(job, upstream);
    }
  }

  private async fanIn(job: Job, upstream: Run): Promise<void> {
    const { store } = this.options;
    const last = (await store.listRuns({ jobId: job.id, limit: 1 })).items[0];
    const since = Math.max(job.createdAt, last?.createdAt ?? 0);
    const successes = new Map<string, number | null>();
    for (const upstreamId of job.afterAll) {
      const success = (await store.listRuns({ jobId: upstreamId, states: ['succeeded'], limit: 1 })).items[0];
      const at = success?.finishedAt ?? null;
      successes.set(upstreamId, at !== null && at > since ? at : null);
    }
    if (!fanInReady(job.afterAll, successes)) return;
    await this.startRun(
      job,
      upstream,
      `every job it runs after (--after-all) succeeded since it last ran, the last being ${upstream.jobName}'s run ${upstream.id}`,
    );
  }

  private async startRun(job: Job, upstream: Run, reason: string): Promise<void> {
    const { clock, gate, events, routing } = this.options;
    if (job.state !== 'active') return;
    const now = clock.now();
    const node = routing.nodeFor(job);
    if (!routing.isHere(node)) {
      // The node its placement names decides overlap and starts it, as it would any run of the job.
      const run = await this.insert(job, now, 'scheduled', node);
      this.remember(instantKey(run), upstream.id);
      await this.record(job, run.scheduledFor, 'ran', reason);
      events.emit('run:fired', run);
      return;
    }
    const { decision, state } = gate.overlap(job);
    if (decision.action === 'skip') {
      const skipped =
        overlapReason(job.policy.concurrency, decision, state) ?? 'an earlier run was still running';
      await this.record(job, now, 'skipped-overlap', `${skipped}; it was due because ${reason}`);
      return;
    }
    if (decision.action === 'replace') for (const id of decision.cancel) gate.replace(id, job, now);
    const reserved = decision.action !== 'queue' && gate.reserve();
    let run: Run;
    try {
      run = await this.insert(job, now, reserved ? 'running' : 'scheduled', node);
    } catch (error) {
      if (reserved) gate.release();
      throw error;
    }
    this.remember(instantKey(run), upstream.id);
    await this.record(job, run.scheduledFor, 'ran', reason);
    events.emit('run:fired', run);
    if (run.state === 'running') gate.launchReserved(run, job);
    else {
      if (reserved) gate.release();
      gate.hold(run, job);
    }
  }

  /** Inserts the run at `now`; an instant of the job already taken at that millisecond moves it on by one. */
  private async insert(job: Job, now: number, state: NewRun['state'], node: string): Promise<Run> {
    for (let offset = 0; ; offset++) {
      const newRun: NewRun = {
        id: this.options.newId(),
        jobId: job.id,
        scheduledFor: now + offset,
        attempt: 1,
        trigger: 'dependency',
        // This node knows only its own runs: the store holds it back while a run of the job runs elsewhere.
        alone: job.policy.concurrency !== 'allow',
        node,
        fence: this.options.fence(),
        now,
        state,
        dueAt: now,
      };
      try {
        return await this.options.store.insertRun(newRun);
      } catch (error) {
        const taken = error instanceof SchedError && error.details?.['attempt'] !== undefined;
        if (offset >= 10 || !taken) throw error;
      }
    }
  }

  private async record(
    job: Job,
    scheduledFor: number,
    outcome: NewOccurrence['outcome'],
    reason: string,
  ): Promise<void> {
    const entry: NewOccurrence = {
      jobId: job.id,
      scheduledFor,
      outcome,
      reason,
      node: this.options.node,
      decidedAt: this.options.clock.now(),
      wall: null,
    };
    await this.options.store.recordOccurrences([entry]);
    if (outcome !== 'ran') {
      this.options.events.emit('occurrence:recorded', {
        ...entry,
        jobName: job.name,
        runIds: [],
        finalState: null,
      });
    }
  }

  private remember(key: string, upstreamRunId: string): void {
    this.upstreamOf.set(key, upstreamRunId);
    if (this.upstreamOf.size > MAX_REMEMBERED) {
      const oldest = this.upstreamOf.keys().next().value;
      if (oldest !== undefined) this.upstreamOf.delete(oldest);
    }
  }
}

function instantKey(run: Pick<Run, 'jobId' | 'scheduledFor'>): string {
  return `${run.jobId}@${run.scheduledFor}`;
}

function words(end: UpstreamRunEnd): string {
  return end === 'timed_out' ? 'timed out' : end;
}
