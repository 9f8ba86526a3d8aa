import { SchedError } from '../../core/errors.js';
import type { Job } from '../../core/job.js';
import type { MisfireCause } from '../../core/policy/misfire.js';
import {
  MISFIRE_THRESHOLD_MS,
  passedRecord,
  planMissedInstants,
  type MissedRecord,
} from '../../core/policy/missed-instants.js';
import { replacedReason } from '../../core/policy/overlap.js';
import { plannedStart } from '../../core/policy/spread.js';
import type { RunTrigger } from '../../core/run.js';
import { nextOccurrence, type Occurrence } from '../../core/schedule/occurrences.js';
import type { Fire, FiredInstant, NewOccurrence, NewRun, Store } from '../../store/store.js';
import { isStoreUnreachable } from '../../store/unreachable.js';
import type { Clock } from '../clock.js';
import type { DaemonEvents } from '../events.js';
import type { RunGate } from '../run-gate.js';
import { DueWindow, failedItems } from './due-window.js';

export interface SchedulerOptions {
  store: Store;
  clock: Clock;
  events: DaemonEvents;
  node: string;
  /** The fencing token stamped on runs (`SCHED_FENCE`). */
  runFence: () => number;
  newId: () => string;
  gate: RunGate;
  /** Whether this node fires the job (in a cluster, only the owner of its shard does); default all. */
  owns?: (job: Job) => boolean;
  /** In a cluster: the shard map this node fires from, checked by the store at every fire. */
  fence?: () => { term: number; publishedAt: number } | undefined;
  /** In a cluster: a fire was refused because a newer shard map is in force. */
  onFenced?: () => void;
  /** In a cluster: whether the instant fell due while the store could not be reached (see StoreReachability). */
  storeUnreachableAt?: (instant: number) => boolean;
  windowMs?: number;
  loadLimit?: number;
  /** After a round of several fires, the next waits at least this long (see DueWindow's batchGapMs); 0 by default. */
  fireBatchGapMs?: number;
  /** The job's runs that ended on this node lately, their ends perhaps not stored yet (see Fire.endedHere). */
  endedHere?: (jobId: string) => readonly string[];
}

/** At most this many fires due together are written in one transaction; more go in several, side by side. */
const FIRES_PER_TRANSACTION = 1_000;

/** An instant that is to run, and why. */
interface PlannedRun {
  instant: number;
  trigger: RunTrigger;
  /** What the ledger records as the reason it ran, once it has a run (a caught-up instant says so). */
  ledgerReason?: string;
}

/** A job's fire as planned: what its transaction is to write. */
interface PlannedFire {
  job: Job;
  instant: number;
  nextRunAt: number | null;
  planned: PlannedRun[];
  records: NewOccurrence[];
}

/**
 * Fires jobs on time. A fire inserts the instant's run, records what the ledger should know, and advances
 * `nextRunAt`, all in one transaction (a compare-and-set on the instant the scheduler saw), so a job changed
 * or fired meanwhile never fires twice. Each job fires at its planned start: the instant plus its stable
 * `--spread` offset and the instant's `--jitter`.
 */
export class Scheduler {
  private readonly window: DueWindow<Job>;
  private lateness: { at: number; lateMs: number }[] = [];

  constructor(private readonly options: SchedulerOptions) {
    this.window = new DueWindow<Job>({
      clock: options.clock,
      windowMs: options.windowMs ?? 60_000,
      loadLimit: options.loadLimit ?? 10_000,
      load: (horizon, limit) => options.store.dueJobs(horizon, limit),
      keyOf: (job) => job.id,
      dueOf: (job) => this.dueOf(job),
      loadKeyOf: (job) => job.nextRunAt ?? Number.MAX_SAFE_INTEGER,
      onDue: (jobs) => this.fireAll(jobs),
      onError: (error) => options.events.emit('scheduler:error', { error }),
      batchGapMs: options.fireBatchGapMs,
    });
  }

  start(): Promise<void> {
    return this.window.start();
  }

  stop(): Promise<void> {
    return this.window.stop();
  }

  /** Called after every change to a job, so the window never holds an outdated instant. */
  jobChanged(job: Job): void {
    this.window.upsert(job);
  }

  windowSize(): number {
    return this.window.size;
  }

  /** Reloads what is due: which jobs this node fires changed wholesale (a new shard map). */
  reset(): Promise<void> {
    return this.window.reset();
  }

  /** How late fires started over the last minute, p99 in ms; null when nothing fired. */
  recentLatenessMs(): number | null {
    const since = this.options.clock.now() - 60_000;
    const recent = this.lateness.filter((sample) => sample.at >= since).map((sample) => sample.lateMs);
    if (recent.length === 0) return null;
    recent.sort((a, b) => a - b);
    return recent[Math.min(recent.length - 1, Math.floor(recent.length * 0.99))] ?? null;
  }

  /**
   * A paused job was resumed: its instants that fell due while paused go through its misfire policy
   * (recorded as `paused`, or caught up), and the schedule goes on from now.
   */
  async resumed(job: Job): Promise<void> {
    const now = this.options.clock.now();
    if (job.nextRunAt === null || plannedStart(job, job.nextRunAt) > now) {
      this.window.upsert(job);
      return;
    }
    await this.commit(this.plan(job, job.nextRunAt, 'paused'));
  }

  private dueOf(job: Job): number | null {
    if (job.state !== 'active' || job.deletedAt !== null || job.nextRunAt === null) return null;
    if (this.options.owns && !this.options.owns(job)) return null;
    return plannedStart(job, job.nextRunAt);
  }

  /**
   * Fires the jobs that came due together: their fires are written in one transaction per
   * FIRES_PER_TRANSACTION, then started. Those whose fire failed (the store unreachable) are returned, to
   * be tried again.
   */
  private async fireAll(jobs: Job[]): Promise<Job[]> {
    const plans = jobs.map((job) => this.plan(job, job.nextRunAt!, 'down'));
    if (plans.length === 1) return this.commitEach(plans);
    const chunks: PlannedFire[][] = [];
    for (let start = 0; start < plans.length; start += FIRES_PER_TRANSACTION)
      chunks.push(plans.slice(start, start + FIRES_PER_TRANSACTION));
    return (await Promise.all(chunks.map((chunk) => this.commitTogether(chunk)))).flat();
  }

  /** Each fire in its own transaction; the jobs whose fire failed. */
  private async commitEach(plans: readonly PlannedFire[]): Promise<Job[]> {
    const results = await Promise.allSettled(plans.map((plan) => this.commit(plan)));
    return failedItems(
      plans.map((plan) => plan.job),
      results,
      (error) => this.options.events.emit('scheduler:error', { error }),
    );
  }

  /**
   * The fires in one transaction. When the store refuses the batch as a whole for one fire's sake (a run
   * key already taken, a deadlock with another node's batch), it wrote nothing, and each fire is written
   * on its own, as it would have been alone.
   */
  private async commitTogether(plans: readonly PlannedFire[]): Promise<Job[]> {
    const { store, events } = this.options;
    const prepared = plans.map((plan) => this.prepare(plan));
    let fired: (FiredInstant | null)[];
    try {
      fired = await store.recordFires(prepared.map((fire) => fire.fire));
    } catch (error) {
      for (const fire of prepared) this.release(fire.reserved);
      if (this.fenced(error)) return [];
      if (!isStoreUnreachable(error)) return this.commitEach(plans);
      events.emit('scheduler:error', { error: error as Error });
      return plans.map((plan) => plan.job);
    }
    const results = await Promise.allSettled(
      plans.map((plan, index) => this.started(plan, prepared[index]!.reserved, fired[index] ?? null)),
    );
    return failedItems(
      plans.map((plan) => plan.job),
      results,
      (error) => events.emit('scheduler:error', { error }),
    );
  }

  /** What firing the job's instant means now: the runs it starts, the ledger records, its next instant. */
  private plan(job: Job, instant: number, cause: MisfireCause): PlannedFire {
    const { clock, events } = this.options;
    const now = clock.now();
    const late = now - plannedStart(job, instant);
    this.noteLateness(now, late);
    if (late > 1_000) events.emit('tick:late', { jobId: job.id, dueAt: instant, firedAt: now });
    const records: NewOccurrence[] = [];
    if (late <= MISFIRE_THRESHOLD_MS && cause === 'down') {
      const { fire: next, passed } = nextOccurrence(job.schedule, instant, job.timezone, job.policy.dst);
      for (const occurrence of passed) this.recordPassed(job, occurrence, now, records);
      return {
        job,
        instant,
        nextRunAt: next?.at ?? null,
        planned: [{ instant, trigger: 'schedule' }],
        records,
      };
    }
    // A job fires on one node only with the store: what fell due while it could not be reached was
    // missed for that reason, and its misfire policy decides now.
    const missedWhy =
      cause === 'down' && this.options.storeUnreachableAt?.(instant) ? 'store-unreachable' : cause;
    const { planned, nextRunAt } = this.planMissed(job, instant, now, missedWhy, records);
    return { job, instant, nextRunAt, planned, records };
  }

  /**
   * The instants from `first` to now that the misfire policy runs, and the job's next instant; the
   * instants it drops, and those a clock change passed over, go to the ledger.
   */
  private planMissed(
    job: Job,
    first: number,
    now: number,
    cause: MisfireCause,
    records: NewOccurrence[],
  ): { planned: PlannedRun[]; nextRunAt: number | null } {
    const plan = planMissedInstants(job, first, now, cause);
    for (const missed of plan.records) records.push(this.record(job, missed, now));
    const planned = plan.run.map(({ at, ledgerReason }) => ({
      instant: at,
      trigger: 'catchup' as const,
      ledgerReason,
    }));
    return { planned, nextRunAt: plan.nextRunAt };
  }

  private noteLateness(at: number, lateMs: number): void {
    this.lateness.push({ at, lateMs: Math.max(0, lateMs) });
    if (this.lateness.length > 2_000) this.lateness = this.lateness.slice(-1_000);
  }

  private recordPassed(job: Job, occurrence: Occurrence, now: number, records: NewOccurrence[]): void {
    const passed = passedRecord(job, occurrence);
    if (passed !== null) records.push(this.record(job, passed, now));
  }

  private record(job: Job, missed: MissedRecord, now: number): NewOccurrence {
    const { at: scheduledFor, outcome, reason, wall } = missed;
    return { jobId: job.id, scheduledFor, outcome, reason, node: this.options.node, decidedAt: now, wall };
  }

  /**
   * Writes the fire: the runs that start now (`running`, with a slot), those that wait (`scheduled`), the
   * ledger records and the job's next instant, in one compare-and-set transaction, in which the store also
   * applies the job's overlap policy to the instant against its runs anywhere; then starts what may start
   * and ends what the new run replaces, on whichever node runs it.
   */
  private async commit(plan: PlannedFire): Promise<void> {
    const { fire, reserved } = this.prepare(plan);
    let fired: FiredInstant | null;
    try {
      fired = await this.options.store.recordFire(fire);
    } catch (error) {
      this.release(reserved);
      if (this.fenced(error)) return;
      throw error;
    }
    await this.started(plan, reserved, fired);
  }

  /** The fire to write, with the slots it reserved for the runs it asks to start now. */
  private prepare(plan: PlannedFire): { fire: Fire; reserved: number } {
    const { clock, gate, endedHere } = this.options;
    const { job, instant, nextRunAt, planned } = plan;
    const now = clock.now();
    const runs: NewRun[] = [];
    const occurrences = [...plan.records];
    let reserved = 0;
    planned.forEach((item, index) => {
      // The instant's `ran` record; the store swaps it for `skipped-overlap` if the overlap rule skips it.
      if (item.ledgerReason !== undefined)
        occurrences.push(
          this.record(job, { at: item.instant, outcome: 'ran', reason: item.ledgerReason, wall: null }, now),
        );
      // Caught-up instants after the first wait their turn; the first starts now if the store lets it.
      if (index === 0 && gate.reserve()) {
        reserved += 1;
        runs.push(this.newRun(job, item, now, 'running'));
      } else {
        runs.push(this.newRun(job, item, now, 'scheduled'));
      }
    });
    const fire: Fire = {
      jobId: job.id,
      runs,
      occurrences,
      expectedNextRunAt: instant,
      nextRunAt,
      fence: this.options.fence?.(),
      concurrency: job.policy.concurrency,
      writtenAt: () => clock.now(),
      endedHere: endedHere && (() => endedHere(job.id)),
    };
    return { fire, reserved };
  }

  private release(reserved: number): void {
    for (let i = 0; i < reserved; i++) this.options.gate.release();
  }

  /** A newer map is in force: its owner fires these jobs; this node waits for the map and reloads. */
  private fenced(error: unknown): boolean {
    if (!(error instanceof SchedError) || error.code !== 'FENCED') return false;
    this.options.onFenced?.();
    return true;
  }

  /** Starts what the written fire lets start, ends what its run replaces, and moves on to the next instant. */
  private async started(plan: PlannedFire, reserved: number, fired: FiredInstant | null): Promise<void> {
    const { store, gate, events, node } = this.options;
    const { job, instant, nextRunAt } = plan;
    const startedRuns = fired?.runs.filter((run) => run.state === 'running').length ?? 0;
    this.release(reserved - Math.min(startedRuns, reserved));
    if (fired === null) {
      // The job changed under us; take its stored state.
      const current = await store.findJob(job.id);
      if (current) this.window.upsert(current);
      return;
    }
    const advanced: Job = { ...job, nextRunAt };
    for (const replaced of fired.replaced) {
      if (replaced.node === node) gate.replace(replaced.id, job, instant);
      // The fire is written: a kill that cannot be relayed now is reported, never a reason to fire again.
      else
        store
          .relayKill(replaced.id, replacedReason(instant))
          .catch((error: Error) => events.emit('scheduler:error', { error }));
    }
    for (const record of fired.occurrences) {
      events.emit('occurrence:recorded', { ...record, jobName: job.name, runIds: [], finalState: null });
    }
    for (const run of fired.runs) {
      events.emit('run:fired', run);
      if (run.state === 'running') gate.launchReserved(run, advanced);
      else gate.hold(run, advanced);
    }
    this.window.upsert(advanced);
  }

  private newRun(job: Job, item: PlannedRun, now: number, state: NewRun['state']): NewRun {
    return {
      id: this.options.newId(),
      jobId: job.id,
      scheduledFor: item.instant,
      attempt: 1,
      trigger: item.trigger,
      node: this.options.node,
      fence: this.options.runFence(),
      now,
      state,
      dueAt: Math.max(plannedStart(job, item.instant), item.trigger === 'schedule' ? 0 : now),
    };
  }
}
