import type { DaemonAccount } from '../core/access/run-as.js';
import type { Job, JobDefinition, Target } from '../core/job.js';
import { applyJobPatch, normalizeJobInput } from '../core/normalize.js';
import { checkIdCursor } from '../core/page-cursor.js';
import { nextFireAt } from '../core/schedule/occurrences.js';
import type {
  AuditRecord,
  BreakerStatus,
  CancelledJob,
  DaemonStatus,
  JobDetail,
  Page,
  ParsedParams,
} from '../ipc/protocol.js';
import type { AuditStamp, Store } from '../store/store.js';
import type { Clock } from './clock.js';
import type { DaemonEvents } from './events.js';
import type { IdempotencyGuard } from './idempotency-guard.js';
import { listJobsByStatus } from './job-listing.js';
import type { JobLookup } from './job-lookup.js';
import { dependentsError, resolveDependencies } from './dependency-links.js';
import type { Scheduler } from './scheduler/scheduler.js';
import type { Actor } from './access/request-caller.js';
import { checkRunnableBy, runsAsOf } from './access/runs-as.js';

export interface JobServiceDeps {
  store: Store;
  clock: Clock;
  events: DaemonEvents;
  scheduler: Scheduler;
  lookup: JobLookup;
  idempotency: IdempotencyGuard;
  newId: () => string;
  /** Whom the daemon can start command jobs as: a job it cannot start is refused when added. */
  daemonAccount: DaemonAccount;
  defaultTimezone: string;
  status: () => Omit<DaemonStatus, 'now' | 'jobs'>;
  breakerStatus: (url: string) => BreakerStatus;
}

/**
 * What each request does to jobs: the daemon's job use cases, one method per protocol call. A change is
 * made for `actor`, the request's caller: a new job's owner, and who the audit log names.
 */
export class JobService {
  constructor(private readonly deps: JobServiceDeps) {}

  async status(): Promise<DaemonStatus> {
    const { store, clock } = this.deps;
    const [active, paused] = await Promise.all([store.countJobs('active'), store.countJobs('paused')]);
    return { ...this.deps.status(), now: clock.now(), jobs: { active, paused } };
  }

  add({ input, idempotencyKey, paused }: ParsedParams<'job.add'>, actor: Actor): Promise<Job> {
    // Only a paused add is fingerprinted differently, so the keys of every other add replay as before.
    const request = paused ? { input, paused } : input;
    return this.deps.idempotency.run('job.add', idempotencyKey, request, async (claim) => {
      const now = this.deps.clock.now();
      const normalized = normalizeJobInput(input, { now, defaultTimezone: this.deps.defaultTimezone });
      const definition = await resolveDependencies(normalized, null, this.deps.store);
      const owner = actor.user;
      await this.refuseUnrunnable('job.add', owner, definition.target, null, now, actor);
      const newJob = {
        id: this.deps.newId(),
        definition,
        owner,
        now,
        // Created paused in the same write: a pause that followed the add could come after a fire.
        ...(paused
          ? { state: 'paused' as const, nextRunAt: null }
          : { nextRunAt: firstRunAt(definition, now) }),
      };
      const job = await this.deps.store.createJob(newJob, this.stamp('job.create', now, actor), claim);
      return this.changed(job, 'job:created');
    });
  }

  list(params: ParsedParams<'job.list'>): Promise<Page<Job>> {
    const { states, ...query } = params;
    return listJobsByStatus(this.deps.store, {
      ...query,
      statuses: states,
      cursor: checkIdCursor(query.cursor),
    });
  }

  async get({ ref, upcoming }: ParsedParams<'job.get'>): Promise<JobDetail> {
    const job = await this.deps.lookup.find(ref);
    const recent = await this.deps.store.listRuns({ jobId: job.id, limit: 10 });
    const breaker = job.target.kind === 'http' ? this.deps.breakerStatus(job.target.url) : null;
    const runsAs = runsAsOf(job.owner, job.target, this.deps.daemonAccount);
    return { job, upcoming: upcomingInstants(job, upcoming), recentRuns: recent.items, breaker, runsAs };
  }

  async update({ ref, patch, ifVersion }: ParsedParams<'job.update'>, actor: Actor): Promise<Job> {
    const job = await this.deps.lookup.findLive(ref, 'change');
    const now = this.deps.clock.now();
    const patched = applyJobPatch(job, patch, { now, defaultTimezone: this.deps.defaultTimezone });
    const definition = await resolveDependencies(patched, job.id, this.deps.store);
    // An HTTP job made a command one becomes something this daemon may not be able to start.
    if (definition.target.kind !== job.target.kind)
      await this.refuseUnrunnable('job.update', job.owner, definition.target, job.id, now, actor);
    const timingChanged =
      JSON.stringify(definition.schedule) !== JSON.stringify(job.schedule) ||
      definition.timezone !== job.timezone ||
      JSON.stringify(definition.policy.dst) !== JSON.stringify(job.policy.dst);
    const nextRunAt = job.state === 'active' && timingChanged ? firstRunAt(definition, now) : job.nextRunAt;
    const change = { definition, nextRunAt };
    const updated = await this.deps.store.updateJob(
      job.id,
      ifVersion ?? job.version,
      change,
      this.stamp('job.update', now, actor),
    );
    return this.changed(updated, 'job:updated');
  }

  async cancel({ ref, force }: ParsedParams<'job.cancel'>, actor: Actor): Promise<CancelledJob> {
    const job = await this.deps.lookup.findLive(ref, 'be cancelled');
    // A dependent's link names this job's id: once it is cancelled nothing starts them, and a new job of the
    // same name is a new id, so the loss is silent. It needs saying before, not after.
    const stranded = (await this.deps.store.listDependents(job.id))
      .filter((dependent) => dependent.id !== job.id)
      .map(({ id, name }) => ({ id, name }));
    if (stranded.length > 0 && force !== true) throw dependentsError(job.name, stranded);
    const now = this.deps.clock.now();
    const cancelled = await this.deps.store.cancelJob(
      job.id,
      job.version,
      now,
      this.stamp('job.cancel', now, actor),
    );
    return { ...this.changed(cancelled, 'job:cancelled'), stranded };
  }

  async pause({ ref }: ParsedParams<'job.pause'>, actor: Actor): Promise<Job> {
    const job = await this.deps.lookup.findLive(ref, 'be paused');
    if (job.state === 'paused') return job;
    const now = this.deps.clock.now();
    const change = { state: 'paused' as const, nextRunAt: null };
    const paused = await this.deps.store.updateJob(
      job.id,
      job.version,
      change,
      this.stamp('job.pause', now, actor),
    );
    return this.changed(paused, 'job:updated');
  }

  async resume({ ref }: ParsedParams<'job.resume'>, actor: Actor): Promise<Job> {
    const job = await this.deps.lookup.findLive(ref, 'be resumed');
    if (job.state === 'active') return job;
    const now = this.deps.clock.now();
    // The pause (or the last change made while paused) is when the job stopped being due: the instants
    // since then go through its misfire policy as `paused`.
    const change = { state: 'active' as const, nextRunAt: firstRunAt(job, job.updatedAt) };
    const resumed = await this.deps.store.updateJob(
      job.id,
      job.version,
      change,
      this.stamp('job.resume', now, actor),
    );
    this.deps.events.emit('job:updated', resumed);
    await this.deps.scheduler.resumed(resumed);
    return (await this.deps.store.findJob(resumed.id)) ?? resumed;
  }

  async listAudit({ jobRef, ...page }: ParsedParams<'audit.list'>): Promise<Page<AuditRecord>> {
    const cursor = checkIdCursor(page.cursor);
    const jobId = jobRef === undefined ? undefined : (await this.deps.lookup.find(jobRef)).id;
    return this.deps.store.listAudit({ ...page, cursor, jobId });
  }

  private changed(job: Job, event: 'job:created' | 'job:updated' | 'job:cancelled'): Job {
    this.deps.scheduler.jobChanged(job);
    this.deps.events.emit(event, job);
    return job;
  }

  /** A command job this daemon could never start is refused, and the refusal audited like any other. */
  private async refuseUnrunnable(
    method: string,
    owner: string,
    target: Target,
    jobId: string | null,
    at: number,
    actor: Actor,
  ): Promise<void> {
    try {
      checkRunnableBy(owner, target, this.deps.daemonAccount);
    } catch (error) {
      const reason = (error as Error).message;
      await this.deps.store.appendAudit({
        ...this.stamp('access.denied', at, actor),
        jobId,
        before: null,
        after: { method, reason },
      });
      throw error;
    }
  }

  private stamp(action: string, at: number, actor: Actor): AuditStamp {
    return { id: this.deps.newId(), at, actor: actor.audited, action };
  }
}

function firstRunAt(definition: JobDefinition, now: number): number | null {
  return nextFireAt(definition.schedule, now, definition.timezone, definition.policy.dst);
}

export function upcomingInstants(job: Job, count: number): number[] {
  if (job.nextRunAt === null || count === 0) return [];
  const instants = [job.nextRunAt];
  while (instants.length < count) {
    const next = nextFireAt(job.schedule, instants.at(-1)!, job.timezone, job.policy.dst);
    if (next === null) break;
    instants.push(next);
  }
  return instants;
}
