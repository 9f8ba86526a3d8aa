import type { Job } from '../../core/job.js';
import { overlapReason } from '../../core/ledger/reasons.js';
import {
  MISFIRE_THRESHOLD_MS,
  passedRecord,
  planMissedInstants,
  type MissedRecord,
} from '../../core/policy/missed-instants.js';
import { plannedStart } from '../../core/policy/spread.js';
import type { Run } from '../../core/run.js';
import { nextFireAt, nextOccurrence } from '../../core/schedule/occurrences.js';
import type { RunTrigger } from '../../core/run.js';
import type { NewOccurrence, NewRun, Store } from '../../store/store.js';
import { isStoreUnreachable } from '../../store/unreachable.js';
import { settledWithin, TIMED_OUT, type Clock } from '../clock.js';
import type { DaemonEvents } from '../events.js';
import type { RunGate } from '../run-gate.js';
import { DueWindow, failedItems } from './due-window.js';

export interface HostSchedulerOptions {
  store: Store;
  clock: Clock;
  events: DaemonEvents;
  node: string;
  runFence: () => number;
  newId: () => string;
  gate: RunGate;
  /** Whether this node's labels match the job's `--on` constraint. */
  matches: (job: Job) => boolean;
  /**
   * Where a run goes while the store cannot be reached: every-host jobs need no other node, so they go on
   * firing, their runs journaled locally until the store takes them. Without it, a fire needs the store.
   */
  offline?: OfflineFiring;
}

export interface OfflineFiring {
  /** The store is known to be unreachable now: no use trying it first. */
  storeUnreachable: () => boolean;
  /** Keeps the run until the store is back, and returns it as stored. */
  journal: (run: NewRun, job: Job) => Run;
  /** Keeps a ledger entry (an instant skipped for an overlap) until the store is back. */
  journalOccurrence: (entry: NewOccurrence) => void;
}

/** A job of this node's, with the next instant this node runs it. */
interface HostEntry {
  job: Job;
  nextAt: number;
}

const PAGE = 1_000;
/**
 * How long an every-host fire waits for the store to take its run, when it can journal it instead, before
 * it does and starts the run. Such a job needs no other node, and a store slow to answer would hold up its
 * instants until the store is known lost: a peer whose side kept the leader but not the majority waits out
 * the leader's step-down and then its own silence, about 5 s, and the instants after it were passed over.
 */
export const JOURNAL_AFTER_MS = 1_000;
const JOB_CHANGES = ['job:created', 'job:updated', 'job:cancelled'] as const;

/**
 * Fires `--placement every-host` jobs on this node: every live node runs each instant, like a per-host cron.
 * The instants are kept here, per node, rather than in the job's shared `nextRunAt`; a run's key includes
 * the node (`host`), so each node's run of an instant is stored once. After a restart a node goes on from
 * the next instant (what it missed while down is not caught up).
 */
export class HostScheduler {
  private readonly entries = new Map<string, HostEntry>();
  private readonly window: DueWindow<HostEntry>;
  /** A write to the store that outlasted JOURNAL_AFTER_MS and has not settled: until it has, fires journal. */
  private slowWrite: Promise<void> | null = null;

  constructor(private readonly options: HostSchedulerOptions) {
    this.window = new DueWindow<HostEntry>({
      clock: options.clock,
      windowMs: 60_000,
      loadLimit: Number.MAX_SAFE_INTEGER,
      load: async (horizon) => [...this.entries.values()].filter((entry) => entry.nextAt <= horizon),
      keyOf: (entry) => entry.job.id,
      dueOf: (entry) =>
        this.entries.get(entry.job.id) === entry ? plannedStart(entry.job, entry.nextAt) : null,
      onDue: (due) => this.fireAll(due),
      onError: (error) => options.events.emit('scheduler:error', { error }),
    });
  }

  /** Loads every live every-host job that this node's labels match, and starts firing them. */
  async start(): Promise<void> {
    for (const event of JOB_CHANGES) this.options.events.on(event, this.followLocalChange);
    await this.forEachLiveJob((job) => this.track(job));
    await this.window.start();
  }

  /**
   * Reads every live job again, for changes made through other nodes that this node may have missed (its
   * connection to the store was lost); a job no longer live stops firing here.
   */
  async resync(): Promise<void> {
    const live = new Set<string>();
    await this.forEachLiveJob((job) => {
      live.add(job.id);
      this.jobChanged(job);
    });
    for (const id of [...this.entries.keys()]) {
      if (live.has(id)) continue;
      this.entries.delete(id);
      this.window.remove(id);
    }
  }

  private async forEachLiveJob(visit: (job: Job) => void): Promise<void> {
    for (let cursor: string | undefined; ;) {
      const page = await this.options.store.listJobs({ limit: PAGE, cursor });
      for (const job of page.items) visit(job);
      if (page.nextCursor === null) return;
      cursor = page.nextCursor;
    }
  }

  stop(): Promise<void> {
    for (const event of JOB_CHANGES) this.options.events.off(event, this.followLocalChange);
    return this.window.stop();
  }

  /** Changes made through this daemon; those made through other nodes come by jobChanged. */
  private readonly followLocalChange = (job: Job): void => this.jobChanged(job);

  get size(): number {
    return this.entries.size;
  }

  /** A job was created or changed (here or through another node). */
  jobChanged(job: Job): void {
    const entry = this.track(job);
    if (entry) this.window.upsert(entry);
    else this.window.remove(job.id);
  }

  private track(job: Job): HostEntry | null {
    const current = this.entries.get(job.id);
    const wanted =
      job.placement.mode === 'every-host' &&
      job.state === 'active' &&
      job.deletedAt === null &&
      this.options.matches(job);
    if (!wanted) {
      this.entries.delete(job.id);
      return null;
    }
    const sameTiming =
      current &&
      JSON.stringify(current.job.schedule) === JSON.stringify(job.schedule) &&
      current.job.timezone === job.timezone;
    const nextAt = sameTiming ? current.nextAt : this.nextAfter(job, this.options.clock.now());
    if (nextAt === null) {
      this.entries.delete(job.id);
      return null;
    }
    const entry = { job, nextAt };
    this.entries.set(job.id, entry);
    return entry;
  }

  private nextAfter(job: Job, after: number): number | null {
    return nextFireAt(job.schedule, after, job.timezone, job.policy.dst);
  }

  private async fireAll(due: HostEntry[]): Promise<void> {
    // Each entry moved to its next instant before its write, so a failed write is reported, not tried again.
    const results = await Promise.allSettled(due.map((entry) => this.fire(entry)));
    failedItems(due, results, (error) => this.options.events.emit('scheduler:error', { error }));
  }

  private async fire(entry: HostEntry): Promise<void> {
    const { job, nextAt: instant } = entry;
    const now = this.options.clock.now();
    const { planned, records, nextAt } = this.plan(job, instant, now);
    // Advance first, so a failing write never makes this node fire an instant twice.
    if (nextAt === null) this.entries.delete(job.id);
    else {
      const advanced = { job, nextAt };
      this.entries.set(job.id, advanced);
      this.window.upsert(advanced);
    }
    const { node } = this.options;
    const entries = records.map(({ at, outcome, reason, wall }) =>
      this.occurrence(job, at, now, { outcome, reason: `on node ${node}: ${reason}`, wall }),
    );
    // Settled into a value at once: a rejection left unhandled while the runs are written would end the process.
    const recorded = (entries.length > 0 ? this.recordOccurrences(entries) : Promise.resolve()).then(
      () => null,
      (error: unknown) => ({ error }),
    );
    // One after another: each caught-up instant meets the job's overlap rule with the run before it.
    for (const { at, trigger } of planned) await this.fireInstant(job, at, trigger, now);
    const failed = await recorded;
    if (failed !== null) throw failed.error;
  }

  /**
   * The instants this node runs for the one due, what the ledger records of those it does not, and the
   * next. Late past MISFIRE_THRESHOLD_MS (the process was held up), the instants passed meanwhile go by
   * the job's misfire policy, as a job that fires on one node does; else the instant runs, and the next
   * is the one after it (a fire a second late is followed at once by the instant it ran into).
   */
  private plan(
    job: Job,
    instant: number,
    now: number,
  ): { planned: Array<{ at: number; trigger: RunTrigger }>; records: MissedRecord[]; nextAt: number | null } {
    if (now - plannedStart(job, instant) > MISFIRE_THRESHOLD_MS) {
      const missed = planMissedInstants(job, instant, now, 'down');
      const planned = missed.run.map(({ at }) => ({ at, trigger: 'catchup' as const }));
      return { planned, records: missed.records, nextAt: missed.nextRunAt };
    }
    const planned = [{ at: instant, trigger: 'schedule' as const }];
    // Only a cron job's clock changes pass instants over; the others' next needs no wall times worked out.
    if (job.schedule.kind !== 'cron') return { planned, records: [], nextAt: this.nextAfter(job, instant) };
    const { fire: next, passed } = nextOccurrence(job.schedule, instant, job.timezone, job.policy.dst);
    const records = passed.flatMap((occurrence) => passedRecord(job, occurrence) ?? []);
    return { planned, records, nextAt: next?.at ?? null };
  }

  private async fireInstant(job: Job, instant: number, trigger: RunTrigger, now: number): Promise<void> {
    const { gate, events, node } = this.options;
    const { decision, state } = gate.overlap(job);
    if (decision.action === 'skip') {
      const reason =
        overlapReason(job.policy.concurrency, decision, state) ?? 'an earlier run was still running';
      await this.recordOccurrences([
        this.occurrence(job, instant, now, {
          outcome: 'skipped-overlap',
          reason: `on node ${node}: ${reason}`,
        }),
      ]);
      return;
    }
    if (decision.action === 'replace') for (const id of decision.cancel) gate.replace(id, job, instant);
    const reserved = decision.action !== 'queue' && gate.reserve();
    const newRun: NewRun = {
      id: this.options.newId(),
      jobId: job.id,
      scheduledFor: instant,
      attempt: 1,
      trigger,
      node,
      fence: this.options.runFence(),
      now,
      state: reserved ? 'running' : 'scheduled',
      dueAt: plannedStart(job, instant),
      host: node,
    };
    let run: Run;
    try {
      run = await this.store(newRun, job);
    } catch (error) {
      if (reserved) gate.release();
      throw error;
    }
    events.emit('run:fired', run);
    if (reserved) gate.launchReserved(run, job);
    else gate.hold(run, job);
  }

  /** This node's ledger entry for an instant of the job. */
  private occurrence(
    job: Job,
    instant: number,
    now: number,
    what: { outcome: NewOccurrence['outcome']; reason: string; wall?: string | null },
  ): NewOccurrence {
    const { node } = this.options;
    const { outcome, reason, wall = null } = what;
    return { jobId: job.id, scheduledFor: instant, wall, outcome, reason, node, host: node, decidedAt: now };
  }

  /**
   * Records ledger entries of instants that did not run (skipped for an overlap, passed over), or journals
   * them when the store cannot be reached: waiting on a store that cannot answer would hold up the
   * instants after them. A write that failed so may have committed all the same: the store keeps this
   * node's first entry of an instant, so the replay does not double it, and another node's entry of the
   * same instant is kept beside it.
   */
  private async recordOccurrences(entries: NewOccurrence[]): Promise<void> {
    const { store, offline } = this.options;
    if (!offline) return store.recordOccurrences(entries);
    await this.storeOrJournal(
      offline,
      () => store.recordOccurrences(entries),
      () => entries.forEach((entry) => offline.journalOccurrence(entry)),
    );
  }

  /**
   * Writes the run to the store, or to the journal when the store cannot be reached. A write that failed
   * so may have committed all the same: the replay goes by the run's id, so the run is stored once.
   */
  private store(run: NewRun, job: Job): Promise<Run> {
    const { store, offline } = this.options;
    if (!offline) return store.insertRun(run);
    return this.storeOrJournal(
      offline,
      () => store.insertRun(run),
      () => offline.journal(run, job),
    );
  }

  /**
   * The write, when the store answers within JOURNAL_AFTER_MS; else, and while it is known unreachable or a
   * write before it is still unanswered, the journal. The write left unanswered goes on: landing later, it
   * is what the replay finds under the same key, so nothing is stored twice.
   */
  private async storeOrJournal<T>(
    offline: OfflineFiring,
    write: () => Promise<T>,
    journal: () => T,
  ): Promise<T> {
    if (offline.storeUnreachable() || this.slowWrite !== null) return journal();
    const writing = write();
    let written: T | typeof TIMED_OUT;
    try {
      written = await settledWithin(this.options.clock, writing, JOURNAL_AFTER_MS);
    } catch (error) {
      if (!isStoreUnreachable(error)) throw error;
      return journal();
    }
    if (written !== TIMED_OUT) return written;
    const settled = writing.then(
      () => undefined,
      () => undefined,
    );
    this.slowWrite = settled;
    void settled.then(() => {
      if (this.slowWrite === settled) this.slowWrite = null;
    });
    return journal();
  }
}
