import type { Job } from '../../core/job.js';
import type { Run } from '../../core/run.js';
import { nextFireTime } from '../../core/schedule/next.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { DaemonEvents } from '../events.js';
import { DueWindow } from './due-window.js';

export interface SchedulerOptions {
  store: Store;
  clock: Clock;
  events: DaemonEvents;
  node: string;
  fence: number;
  newId: () => string;
  /** Hands a fired run (already `running` in the store) to the executor. */
  launch: (run: Run, job: Job) => void;
  windowMs?: number;
  loadLimit?: number;
}

/**
 * Fires jobs on time. A fire inserts the run and advances `nextRunAt` in one transaction (a
 * compare-and-set on the instant the scheduler saw), so a job changed or fired meanwhile never fires twice.
 */
export class Scheduler {
  private readonly window: DueWindow<Job>;

  constructor(private readonly options: SchedulerOptions) {
    this.window = new DueWindow<Job>({
      clock: options.clock,
      windowMs: options.windowMs ?? 60_000,
      loadLimit: options.loadLimit ?? 10_000,
      load: (horizon, limit) => options.store.dueJobs(horizon, limit),
      keyOf: (job) => job.id,
      dueOf: (job) => (job.state === 'active' && job.deletedAt === null ? job.nextRunAt : null),
      onDue: (jobs) => this.fireAll(jobs),
      onError: (error) => options.events.emit('scheduler:error', { error }),
    });
  }

  start(): Promise<void> {
    return this.window.start();
  }

  stop(): void {
    this.window.stop();
  }

  /** Called after every change to a job, so the window never holds an outdated instant. */
  jobChanged(job: Job): void {
    this.window.upsert(job);
  }

  windowSize(): number {
    return this.window.size;
  }

  private async fireAll(jobs: Job[]): Promise<void> {
    await Promise.all(jobs.map((job) => this.fire(job, job.nextRunAt!)));
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
        state: 'running',
        dueAt,
      },
      expectedNextRunAt: dueAt,
      nextRunAt,
    });
    if (now - dueAt > 1_000) events.emit('tick:late', { jobId: job.id, dueAt, firedAt: now });
    if (run) {
      const advanced: Job = { ...job, nextRunAt };
      events.emit('run:fired', run);
      this.options.launch(run, advanced);
      this.window.upsert(advanced);
    } else {
      // The job changed under us; take its stored state.
      const current = await store.findJob(job.id);
      if (current) this.window.upsert(current);
    }
  }
}
