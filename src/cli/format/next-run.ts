import type { Job } from '../../core/job.js';
import { formatInstantWithRelative, type Viewer } from './time.js';

/** `next run 2026-12-01 03:00:00 CET (in 5h 2m)`, or why there is none. */
export function describeNextRun(job: Job, viewer: Viewer): string {
  if (job.nextRunAt !== null) return `next run ${formatInstantWithRelative(job.nextRunAt, viewer)}`;
  if (job.state === 'paused') return 'paused, so it will not run until resumed';
  if (job.state === 'cancelled') return 'cancelled, so it will not run again';
  if (job.schedule.kind === 'none') return 'it runs when the jobs it follows finish';
  return 'it has no run left to make';
}
