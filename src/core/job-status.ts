import type { Job, JobState } from './job.js';

/**
 * What a job is doing, as people read it: its stored state, except that a one-shot (`--at`) job whose
 * instant has passed is `done`. It stays stored as active (the scheduler simply has no next instant for
 * it), so `done` is derived here rather than written, and no store or migration has to know of it.
 */
export const JOB_STATUSES = ['active', 'paused', 'cancelled', 'done'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export function jobStatus(job: Pick<Job, 'state' | 'schedule' | 'nextRunAt'>): JobStatus {
  return job.state === 'active' && job.schedule.kind === 'at' && job.nextRunAt === null ? 'done' : job.state;
}

/** The stored state a status is kept under: what to ask the store for before telling `done` from `active`. */
export function storedStateOf(status: JobStatus): JobState {
  return status === 'done' ? 'active' : status;
}

/** A job as listed and shown: `state` says `done` for a one-shot job that has fired. */
export type ListedJob = Omit<Job, 'state'> & { state: JobStatus };

export function asListed(job: Job): ListedJob {
  return { ...job, state: jobStatus(job) };
}
