import { SchedError } from '../core/errors.js';
import type { Job, JobDefinition } from '../core/job.js';
import { applyJobPatch, normalizeJobInput } from '../core/normalize.js';
import { nextFireTime, nextFireTimes } from '../core/schedule/next.js';
import type { DaemonStatus, JobDetail, Page, ParsedParams } from '../ipc/protocol.js';
import type { Run, RunSummary } from '../core/run.js';
import type { AuditStamp, Store } from '../store/store.js';
import type { Clock } from './clock.js';
import type { DaemonEvents } from './events.js';
import type { RunLauncher } from './run-launcher.js';
import type { Scheduler } from './scheduler/scheduler.js';

export interface JobServiceDeps {
  store: Store;
  clock: Clock;
  events: DaemonEvents;
  scheduler: Scheduler;
  launcher: RunLauncher;
  newId: () => string;
  actor: string;
  node: string;
  fence: () => number;
  defaultTimezone: string;
  status: () => Omit<DaemonStatus, 'now' | 'jobs' | 'runningRuns'>;
}

/** What each request does to jobs and runs: the daemon's use cases, one method per protocol call. */
export class JobService {
  constructor(private readonly deps: JobServiceDeps) {}

  async status(): Promise<DaemonStatus> {
    const { store, launcher, clock } = this.deps;
    const [active, paused] = await Promise.all([store.countJobs('active'), store.countJobs('paused')]);
    return {
      ...this.deps.status(),
      now: clock.now(),
      jobs: { active, paused },
      runningRuns: launcher.runningCount(),
    };
  }

  async add({ input }: ParsedParams<'job.add'>): Promise<Job> {
    const now = this.deps.clock.now();
    const definition = normalizeJobInput(input, { now, defaultTimezone: this.deps.defaultTimezone });
    const job = await this.deps.store.createJob(
      {
        id: this.deps.newId(),
        definition,
        owner: this.deps.actor,
        now,
        nextRunAt: firstRunAt(definition, now),
      },
      this.stamp('job.create', now),
    );
    return this.changed(job, 'job:created');
  }

  list(params: ParsedParams<'job.list'>): Promise<Page<Job>> {
    return this.deps.store.listJobs(params);
  }

  async get({ ref, upcoming }: ParsedParams<'job.get'>): Promise<JobDetail> {
    const job = await this.find(ref);
    const recent = await this.deps.store.listRuns({ jobId: job.id, limit: 10 });
    return { job, upcoming: upcomingInstants(job, upcoming), recentRuns: recent.items };
  }

  async update({ ref, patch, ifVersion }: ParsedParams<'job.update'>): Promise<Job> {
    const job = await this.findLive(ref, 'update');
    const now = this.deps.clock.now();
    const definition = applyJobPatch(job, patch, { now, defaultTimezone: this.deps.defaultTimezone });
    const timingChanged =
      JSON.stringify(definition.schedule) !== JSON.stringify(job.schedule) ||
      definition.timezone !== job.timezone;
    const nextRunAt = job.state === 'active' && timingChanged ? firstRunAt(definition, now) : job.nextRunAt;
    const updated = await this.deps.store.updateJob(
      job.id,
      ifVersion ?? job.version,
      { definition, nextRunAt },
      this.stamp('job.update', now),
    );
    return this.changed(updated, 'job:updated');
  }

  async cancel({ ref }: ParsedParams<'job.cancel'>): Promise<Job> {
    const job = await this.findLive(ref, 'cancel');
    const now = this.deps.clock.now();
    const cancelled = await this.deps.store.cancelJob(
      job.id,
      job.version,
      now,
      this.stamp('job.cancel', now),
    );
    return this.changed(cancelled, 'job:cancelled');
  }

  async pause({ ref }: ParsedParams<'job.pause'>): Promise<Job> {
    const job = await this.findLive(ref, 'pause');
    if (job.state === 'paused') return job;
    const now = this.deps.clock.now();
    const paused = await this.deps.store.updateJob(
      job.id,
      job.version,
      { state: 'paused', nextRunAt: null },
      this.stamp('job.pause', now),
    );
    return this.changed(paused, 'job:updated');
  }

  async resume({ ref }: ParsedParams<'job.resume'>): Promise<Job> {
    const job = await this.findLive(ref, 'resume');
    if (job.state === 'active') return job;
    const now = this.deps.clock.now();
    const change = { state: 'active' as const, nextRunAt: nextFireTime(job.schedule, now, job.timezone) };
    const resumed = await this.deps.store.updateJob(
      job.id,
      job.version,
      change,
      this.stamp('job.resume', now),
    );
    return this.changed(resumed, 'job:updated');
  }

  async trigger({ ref }: ParsedParams<'job.trigger'>): Promise<Run> {
    const job = await this.findLive(ref, 'trigger');
    const now = this.deps.clock.now();
    const run = await this.deps.store.insertRun({
      id: this.deps.newId(),
      jobId: job.id,
      scheduledFor: now,
      attempt: 1,
      trigger: 'manual',
      node: this.deps.node,
      fence: this.deps.fence(),
      now,
    });
    this.deps.events.emit('run:fired', run);
    this.deps.launcher.launch(run, job);
    return run;
  }

  async listRuns(params: ParsedParams<'run.list'>): Promise<Page<RunSummary>> {
    const { jobRef, ...query } = params;
    const jobId = jobRef === undefined ? undefined : (await this.find(jobRef)).id;
    return this.deps.store.listRuns({ ...query, jobId });
  }

  async getRun({ id }: ParsedParams<'run.get'>): Promise<Run> {
    const run = await this.deps.store.findRun(id);
    if (!run)
      throw new SchedError('RUN_NOT_FOUND', `No run with id ${id}.`, {
        hint: 'List runs with `sched history [JOB]`.',
        details: { id },
      });
    return run;
  }

  /** Reads also reach cancelled jobs by name; changes go through `findLive`. */
  private async find(ref: string): Promise<Job> {
    const job = await this.deps.store.findJob(ref, { includeCancelledNames: true });
    if (!job)
      throw new SchedError('JOB_NOT_FOUND', `No job named or with id "${ref}".`, {
        hint: 'List jobs with `sched ls` (cancelled ones with `sched ls --status cancelled`).',
        details: { ref },
      });
    return job;
  }

  private async findLive(ref: string, action: string): Promise<Job> {
    const job = (await this.deps.store.findJob(ref)) ?? (await this.find(ref));
    if (job.state === 'cancelled') {
      throw new SchedError('INVALID_STATE', `Job ${job.name} is cancelled; it cannot ${action}.`, {
        hint: 'Add a new job with `sched add` instead.',
        details: { id: job.id },
      });
    }
    return job;
  }

  private changed(job: Job, event: 'job:created' | 'job:updated' | 'job:cancelled'): Job {
    this.deps.scheduler.jobChanged(job);
    this.deps.events.emit(event, job);
    return job;
  }

  private stamp(action: string, at: number): AuditStamp {
    return { id: this.deps.newId(), at, actor: this.deps.actor, action };
  }
}

function firstRunAt(definition: JobDefinition, now: number): number | null {
  return nextFireTime(definition.schedule, now, definition.timezone);
}

function upcomingInstants(job: Job, count: number): number[] {
  if (job.nextRunAt === null || count === 0) return [];
  return [job.nextRunAt, ...nextFireTimes(job.schedule, job.nextRunAt, job.timezone, count - 1)];
}
