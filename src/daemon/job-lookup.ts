import { SchedError } from '../core/errors.js';
import type { Job } from '../core/job.js';
import type { Store } from '../store/store.js';

/** Resolves what a user typed as JOB (a name or an id) to a stored job, with errors that say what to do. */
export class JobLookup {
  constructor(private readonly store: Store) {}

  /** Reads also reach cancelled jobs by name (the newest of that name), so their history stays visible. */
  async find(ref: string): Promise<Job> {
    const job = await this.store.findJob(ref, { includeCancelledNames: true });
    if (!job) {
      throw new SchedError('JOB_NOT_FOUND', `No job named or with id "${ref}".`, {
        hint: 'List jobs with `sched ls` (cancelled ones with `sched ls --status cancelled`).',
        details: { ref },
      });
    }
    return job;
  }

  /** A job that may still change; a cancelled one is refused. */
  async findLive(ref: string, action: string): Promise<Job> {
    const job = (await this.store.findJob(ref)) ?? (await this.find(ref));
    if (job.state === 'cancelled') {
      throw new SchedError('INVALID_STATE', `Job ${job.name} is cancelled; it cannot ${action}.`, {
        hint: 'Add a new job with `sched add` instead.',
        details: { id: job.id },
      });
    }
    return job;
  }
}
