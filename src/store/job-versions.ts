import type { Job, JobState } from '../core/job.js';
import type { JobChange } from './store.js';

/** The next version of a job after a change, the same on every back end: cancelling frees its name and stops it. */
export function nextVersion(before: Job, change: JobChange, now: number): Job {
  const state: JobState = change.state ?? before.state;
  const cancelling = state === 'cancelled';
  return {
    ...before,
    ...change.definition,
    state,
    version: before.version + 1,
    updatedAt: now,
    deletedAt: cancelling ? now : null,
    nextRunAt: cancelling ? null : change.nextRunAt === undefined ? before.nextRunAt : change.nextRunAt,
  };
}
