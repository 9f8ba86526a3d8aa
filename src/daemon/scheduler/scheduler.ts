import type { Job } from '../../core/job.js';
import { MinHeap } from '../../core/min-heap.js';
import type { Run } from '../../core/run.js';
import { nextFireTime } from '../../core/schedule/next.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { DaemonEvents } from '../events.js';

export interface SchedulerOptions {
  store: Store;
  clock: Clock;
  events: DaemonEvents;
  node: string;
  fence: number;
  newId: () => string;
  /** Hands a fired run to the executor. */
  launch: (run: Run, job: Job) => void;
  /** How far ahead the in-memory window reaches. */
  windowMs?: number;
  /** How many due jobs one window load may take from the store. */
  loadLimit?: number;
}

interface WindowEntry {
  jobId: string;
  dueAt: number;
}

/**
 * Fires jobs on time without scanning them: the store's due-time index fills an in-memory window of
 * the next instants, a min-heap orders it, and one timer is armed for the earliest. Job changes are
 * pushed in by `jobChanged`; a fire inserts the run and advances `nextRunAt` in one transaction.
 */
export class Scheduler {
  private readonly heap = new MinHeap<WindowEntry>((entry) => entry.dueAt);
  /** The window's truth: a heap entry whose dueAt differs from this map is stale and skipped. */
  private readonly windowJobs = new Map<string, Job>();
  private windowEnd = 0;
  private timer: NodeJS.Timeout | null = null;
  private armedFor = Infinity;
  private ticking = false;
  private stopped = true;
  private readonly windowMs: number;
  private readonly loadLimit: number;

  constructor(private readonly options: SchedulerOptions) {
    this.windowMs = options.windowMs ?? 60_000;
    this.loadLimit = options.loadLimit ?? 10_000;
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.loadWindow();
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.armedFor = Infinity;
  }

  /** Called after every change to a job, so the window never holds an outdated instant. */
  jobChanged(job: Job): void {
    if (this.stopped) return;
    const firing = job.state === 'active' && job.deletedAt === null && job.nextRunAt !== null;
    if (!firing || job.nextRunAt! > this.windowEnd) {
      this.windowJobs.delete(job.id);
      return;
    }
    this.enter(job);
    this.arm();
  }

  /** Instants currently held in memory (for status and tests). */
  windowSize(): number {
    return this.windowJobs.size;
  }

  private enter(job: Job): void {
    this.windowJobs.set(job.id, job);
    this.heap.push({ jobId: job.id, dueAt: job.nextRunAt! });
  }

  private async loadWindow(): Promise<void> {
    const horizon = this.options.clock.now() + this.windowMs;
    const due = await this.options.store.dueJobs(horizon, this.loadLimit);
    // When the limit cut the load short, only instants up to the last loaded one are known complete.
    this.windowEnd = due.length === this.loadLimit ? due[due.length - 1]!.nextRunAt! : horizon;
    for (const job of due) {
      const known = this.windowJobs.get(job.id);
      if (known?.nextRunAt !== job.nextRunAt || known?.version !== job.version) this.enter(job);
    }
  }

  private arm(): void {
    if (this.stopped) return;
    const top = this.peekLive();
    const wakeAt = Math.min(top?.dueAt ?? Infinity, this.windowEnd);
    if (wakeAt >= this.armedFor && this.timer) return;
    if (this.timer) clearTimeout(this.timer);
    this.armedFor = wakeAt;
    const delay = Math.max(0, wakeAt - this.options.clock.now());
    this.timer = setTimeout(() => void this.tick(), delay);
  }

  private peekLive(): WindowEntry | undefined {
    for (let top = this.heap.peek(); top; top = this.heap.peek()) {
      if (this.windowJobs.get(top.jobId)?.nextRunAt === top.dueAt) return top;
      this.heap.pop();
    }
    return undefined;
  }

  private async tick(): Promise<void> {
    this.timer = null;
    this.armedFor = Infinity;
    if (this.stopped || this.ticking) return;
    this.ticking = true;
    try {
      // setTimeout may wake a little early: fire only what is really due, by the clock, and re-arm.
      for (let top = this.peekLive(); top && top.dueAt <= this.options.clock.now(); top = this.peekLive()) {
        this.heap.pop();
        const job = this.windowJobs.get(top.jobId)!;
        this.windowJobs.delete(top.jobId);
        await this.fire(job, top.dueAt);
        if (this.stopped) return;
      }
      if (this.options.clock.now() >= this.windowEnd) await this.loadWindow();
    } catch (error) {
      this.options.events.emit('scheduler:error', { error: error as Error });
    } finally {
      this.ticking = false;
      this.arm();
    }
  }

  private async fire(job: Job, dueAt: number): Promise<void> {
    const { store, clock, events } = this.options;
    const now = clock.now();
    // After downtime the overdue instant fires once and the schedule resumes from now.
    const nextRunAt = nextFireTime(job.schedule, Math.max(dueAt, now), job.timezone);
    const run = await store.recordFire({
      run: {
        id: this.options.newId(),
        jobId: job.id,
        scheduledFor: dueAt,
        attempt: 1,
        trigger: 'schedule',
        node: this.options.node,
        fence: this.options.fence,
        now,
      },
      expectedNextRunAt: dueAt,
      nextRunAt,
    });
    if (now - dueAt > 1_000) events.emit('tick:late', { jobId: job.id, dueAt, firedAt: now });
    const advanced: Job = { ...job, nextRunAt };
    if (run) {
      events.emit('run:fired', run);
      this.options.launch(run, advanced);
      if (nextRunAt !== null && nextRunAt <= this.windowEnd) this.enter(advanced);
    } else {
      // The job changed under us; its current state will come back through jobChanged or the next load.
      const current = await store.findJob(job.id);
      if (current) this.jobChanged(current);
    }
  }
}
