import type { Job } from '../../core/job.js';
import type { RunOutcome } from '../../core/run.js';
import { LocalCopy } from '../../store/local-copy/local-copy.js';
import { replayJournal } from '../../store/local-copy/replay.js';
import type { JournaledEnd } from '../../store/local-copy/run-journal.js';
import type { Store } from '../../store/store.js';
import { isStoreUnreachable } from '../../store/unreachable.js';
import type { CancelTimer, Clock } from '../clock.js';
import type { DaemonEvents } from '../events.js';
import { createPrivateFile } from '../private-file.js';
import type { OfflineFiring } from '../scheduler/host-scheduler.js';
import type { Service } from '../service.js';
import { journaledRunsStore } from './journaled-store.js';
import type { StoreReachability } from './store-reachability.js';
import { maskDefinition } from '../../core/secrets/mask.js';

export interface LocalAutonomyOptions {
  /** `local-copy.db` in the daemon's home. */
  file: string;
  /** The store, as the reachability tracker observes it. */
  store: Store;
  reachability: StoreReachability;
  clock: Clock;
  events: DaemonEvents;
  /** Whether this node may run the job (its labels match the job's `--on`). */
  mayRun: (job: Job) => boolean;
  /**
   * Whether to keep a copy of the job definitions (default true). A peer's store is its own copy of the
   * replicated log, read without reaching anyone: only the journal of runs is needed.
   */
  copiesDefinitions?: boolean;
}

/** How often the store is tried while it cannot be reached, and the journal replayed while it holds runs. */
const PROBE_INTERVAL_MS = 1_000;
/**
 * How often the copy of the job definitions is read whole from the store. Changes reach it as this node
 * hears of them (its own, and other nodes' through the store's announcements, read whole again when those
 * were cut off); the full read only bounds what a lost announcement could leave stale.
 */
const REFRESH_INTERVAL_MS = 5 * 60_000;
const PAGE = 1_000;
const JOB_CHANGES = ['job:created', 'job:updated', 'job:cancelled'] as const;

/**
 * Local autonomy while the store cannot be reached: this node keeps a copy of the job definitions it may run
 * (refreshed from the store), journals the every-host runs it fires meanwhile (and the instants it skips for
 * an overlap), and writes them to the store once it is back. While degraded it tries the store every second;
 * the first call that gets through ends degraded mode (see StoreReachability). Jobs that fire on one node
 * are not its concern: they wait for the store (firing them from a copy could fire them twice).
 */
export class LocalAutonomy implements Service {
  readonly name = 'local autonomy';
  private copy: LocalCopy | null = null;
  private timer: CancelTimer | null = null;
  /** When (monotonic) the armed timer is due. */
  private timerDueAt = Infinity;
  private nextRefreshAt = 0;
  private ticking: Promise<void> | null = null;
  /** Asked for while a round ran: the store came back during it, so the journal is replayed at once. */
  private tickAgain = false;
  private stopped = false;
  /** Jobs changed since the copy was last written, by id (see jobChanged). */
  private readonly changedJobs = new Map<string, Job>();
  private writeDeferred = false;

  constructor(private readonly options: LocalAutonomyOptions) {}

  private get local(): LocalCopy {
    if (this.copy === null) throw new Error('the local copy is not open');
    return this.copy;
  }

  async start(): Promise<void> {
    createPrivateFile(this.options.file);
    this.copy = LocalCopy.open(this.options.file);
    for (const event of JOB_CHANGES) this.options.events.on(event, this.followChange);
    this.options.events.on('store:reachable', this.tickNow);
    // A journal left by a daemon stopped during an outage is replayed now, before anything reads those runs.
    await this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.();
    for (const event of JOB_CHANGES) this.options.events.off(event, this.followChange);
    this.options.events.off('store:reachable', this.tickNow);
    await this.ticking;
    this.writeChangedJobs();
    this.copy?.close();
    this.copy = null;
  }

  /** The store as the run launcher writes to it: journaled runs end in the journal until replayed. */
  launcherStore(store: Store): Store {
    return journaledRunsStore(store, this.local.runs);
  }

  /** Keeps the end of a run the store holds while the store cannot be reached to record it. */
  keepEndOffline(runId: string, jobId: string | null, outcome: RunOutcome): boolean {
    if (this.copy === null) return false;
    this.copy.runs.addEnd({ runId, jobId, outcome });
    return true;
  }

  /** The ends kept until the store is back (a daemon before this one may have kept them). */
  endsKeptOffline(): JournaledEnd[] {
    return this.local.runs.pendingEnds();
  }

  /** How the every-host scheduler fires while the store cannot be reached. */
  readonly offline: OfflineFiring = {
    storeUnreachable: () => !this.options.reachability.reachable,
    journal: (run, job) => {
      this.local.runs.add(run, job.name);
      this.replaySoon();
      return this.local.runs.read(run.id)!;
    },
    journalOccurrence: (entry) => {
      this.local.occurrences.add(entry);
      this.replaySoon();
    },
  };

  /**
   * Something was journaled, maybe with the store reachable (it was slow to answer): the replay comes within
   * a probe interval, not at the next refresh. A round under way arms by what the journal holds when it ends.
   */
  private replaySoon(): void {
    if (this.stopped || this.ticking !== null) return;
    if (this.timerDueAt > this.options.clock.monotonic() + PROBE_INTERVAL_MS) this.arm();
  }

  /**
   * The copy of the job definitions (their secret values masked: the copy serves `ls` and `show` only, and
   * secrets never reach a file in clear), and when it was last read whole from the store.
   */
  jobs(): { jobs: Job[]; refreshedAt: number | null } {
    this.writeChangedJobs();
    return { jobs: this.local.jobs.list(), refreshedAt: this.local.jobs.refreshedAt() };
  }

  findJob(ref: string): Job | null {
    this.writeChangedJobs();
    return this.local.jobs.find(ref);
  }

  /**
   * A job changed, here or through another node: the copy follows after the I/O at hand, the changes of
   * one turn of the event loop in one transaction. Each written on its own was a commit to disk (an fsync)
   * per job change on every node, on the event loop and in the way of each create's answer; the copy is
   * read whole again from the store at start and every five minutes anyway.
   */
  jobChanged(job: Job): void {
    if (this.copy === null || !this.copiesDefinitions) return;
    this.changedJobs.set(job.id, job);
    if (this.writeDeferred) return;
    this.writeDeferred = true;
    setImmediate(() => this.writeChangedJobs());
  }

  private writeChangedJobs(): void {
    this.writeDeferred = false;
    if (this.changedJobs.size === 0 || this.copy === null) return;
    const changes = [...this.changedJobs.values()].map((job) => ({
      job: maskDefinition(job),
      keep: this.keeps(job),
    }));
    this.changedJobs.clear();
    try {
      this.copy.jobs.putAll(changes);
    } catch (error) {
      this.options.events.emit('scheduler:error', { error: error as Error });
      this.resync();
    }
  }

  /** Changes may have been missed (the store's announcements were cut off): read the copy whole again. */
  resync(): void {
    this.nextRefreshAt = 0;
    void this.tick();
  }

  private get copiesDefinitions(): boolean {
    return this.options.copiesDefinitions ?? true;
  }

  private readonly followChange = (job: Job): void => this.jobChanged(job);

  private readonly tickNow = (): void => void this.tick();

  private keeps(job: Job): boolean {
    return job.state !== 'cancelled' && job.deletedAt === null && this.options.mayRun(job);
  }

  /** One round: replay what the journal holds, try the store while it is unreachable, refresh the copy. */
  private tick(): Promise<void> {
    if (this.ticking !== null) {
      this.tickAgain = true;
      return this.ticking;
    }
    this.ticking = this.round()
      .catch((error: Error) => {
        // The tracker has noted it; an outage is not an error to report every second.
        if (!isStoreUnreachable(error)) this.options.events.emit('scheduler:error', { error });
      })
      .finally(() => {
        this.ticking = null;
        if (this.tickAgain && !this.stopped) {
          this.tickAgain = false;
          void this.tick();
        } else this.arm();
      });
    return this.ticking;
  }

  private async round(): Promise<void> {
    const { store, reachability, clock, events } = this.options;
    if (this.local.hasPending()) {
      await replayJournal(
        this.local,
        store,
        (error) => events.emit('scheduler:error', { error }),
        (runId) => events.emit('run:offline-end-settled', { runId }),
      );
    } else if (!reachability.reachable) {
      await store.latestEventId();
    }
    if (this.copiesDefinitions && reachability.reachable && clock.now() >= this.nextRefreshAt) {
      await this.refresh();
      this.nextRefreshAt = clock.now() + REFRESH_INTERVAL_MS;
    }
  }

  private async refresh(): Promise<void> {
    const at = this.options.clock.now();
    const kept: Job[] = [];
    for (let cursor: string | undefined; ;) {
      const page = await this.options.store.listJobs({ limit: PAGE, cursor });
      kept.push(...page.items.filter((job) => this.keeps(job)));
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    this.writeChangedJobs();
    this.copy?.jobs.replaceAll(kept.map(maskDefinition), at);
  }

  private arm(): void {
    this.timer?.();
    this.timer = null;
    if (this.stopped) return;
    const busy = !this.options.reachability.reachable || this.local.hasPending();
    const untilRefresh = this.copiesDefinitions
      ? this.nextRefreshAt - this.options.clock.now()
      : REFRESH_INTERVAL_MS;
    const delay = busy ? PROBE_INTERVAL_MS : Math.max(PROBE_INTERVAL_MS, untilRefresh);
    this.timerDueAt = this.options.clock.monotonic() + delay;
    this.timer = this.options.clock.setTimer(delay, this.tickNow);
  }
}
