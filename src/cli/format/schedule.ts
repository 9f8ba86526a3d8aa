import { formatDuration } from '../../core/duration.js';
import type { Schedule } from '../../core/job.js';
import { formatUtc } from './time.js';

/** The schedule as it was given (`--cron`, `--at`, `--every`), next to the words describeSchedule makes of it. */
export function rawSchedule(schedule: Schedule): string {
  switch (schedule.kind) {
    case 'cron':
      return `--cron '${schedule.expression}'`;
    case 'at':
      return `--at ${formatUtc(schedule.at)}`;
    case 'every':
      return `--every ${formatDuration(schedule.intervalMs)}`;
    case 'none':
      return '(no schedule: runs after other jobs or when triggered)';
  }
}

/** Turns a schedule into words; passed in so formatting code does not load cron maths at start-up. */
export type ScheduleDescriber = (schedule: Schedule, timezone: string) => string;
